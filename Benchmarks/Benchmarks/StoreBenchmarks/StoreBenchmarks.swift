// The store's own cost per action, with the features of SpoolWorkloads. Allocation counts per
// action (`mallocCountTotal` divided by the scaled iterations) are the figures to gate on;
// wall-clock figures on a shared machine are only comparable within one run.
import Benchmark
import Spool
import SpoolWorkloads
import Synchronization

let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .init(
    metrics: [.wallClock, .throughput, .mallocCountTotal],
    scalingFactor: .mega,
    maxDuration: .seconds(2),
    maxIterations: 20
  )

  Benchmark("Store.enqueue counter (one producer)") { benchmark in
    let store = Store(initialState: CounterFeature.State()) { CounterFeature() }
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations { store.enqueue(.increment) }
    await store.finish()
    benchmark.stopMeasurement()
    blackHole(await store.state.count)
  }

  Benchmark("Store.send counter (awaited)") { benchmark in
    let store = Store(initialState: CounterFeature.State()) { CounterFeature() }
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations { await store.send(.increment) }
    benchmark.stopMeasurement()
    blackHole(await store.state.count)
  }

  // A request handler's read, from a task on the global executor.
  Benchmark("Store.state read (awaited, idle store)") { benchmark in
    let store = Store(initialState: CounterFeature.State()) { CounterFeature() }
    await store.send(.increment)
    var total = 0
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations { total &+= await store.state.count }
    benchmark.stopMeasurement()
    blackHole(total)
  }

  Benchmark("Store.enqueue counter (4 producers)") { benchmark in
    let store = Store(initialState: CounterFeature.State()) { CounterFeature() }
    let share = benchmark.scaledIterations.count / 4
    benchmark.startMeasurement()
    await withTaskGroup(of: Void.self) { group in
      for producer in 0..<4 {
        group.addTask {
          for index in 0..<share { store.enqueue(.add(producer &* share &+ index)) }
        }
      }
    }
    await store.finish()
    benchmark.stopMeasurement()
    blackHole(await store.state.sum)
  }

  Benchmark("Baseline: plain actor awaited (counter)") { benchmark in
    let counter = PlainCounter()
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations { await counter.increment() }
    benchmark.stopMeasurement()
    blackHole(await counter.count)
  }

  Benchmark("Baseline: locked class (counter)") { benchmark in
    let count = Mutex(0)
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations { count.withLock { $0 &+= 1 } }
    benchmark.stopMeasurement()
    blackHole(count.withLock { $0 })
  }

  dependencyReadBenchmarks()

  for rows in [1_000, 10_000] {
    Benchmark(
      "Store.enqueue todos row action (\(rows) rows)",
      configuration: .init(scalingFactor: .kilo)
    ) { benchmark in
      let store = Store(initialState: TodosFeature.State(rows: rows)) { TodosFeature() }
      benchmark.startMeasurement()
      for index in benchmark.scaledIterations {
        store.enqueue(.rows(.element(id: index % rows, action: .toggle)))
      }
      await store.finish()
      benchmark.stopMeasurement()
      blackHole(await store.state.rowActions)
    }
  }
}

/// What a Swift engineer writes without Spool.
actor PlainCounter {
  var count = 0
  func increment() { count &+= 1 }
}

// What a `@Dependency` read costs in a reducer, by the type of its value: a read resolves the
// value each time (it merges the values the reducer was made with into the current ones and
// casts the stored value to its type), and a cast to a constrained existential such as
// `any Clock<Duration>` costs more than a cast to a concrete type.
import Benchmark
import Dependencies
import Spool

func dependencyReadBenchmarks() {
  // A thousand actions an iteration, not a million: a read of a constrained existential costs
  // microseconds.
  let configuration = Benchmark.Configuration(scalingFactor: .kilo)

  Benchmark(
    "Store.send reading @Dependency(\\.continuousClock) (any Clock<Duration>)",
    configuration: configuration
  ) { benchmark in
    await measureSends(benchmark, to: Store(initialState: 0) { ExistentialClockReader() })
  }

  Benchmark(
    "Store.send reading @Dependency(\\.continuousClock) set by withDependencies",
    configuration: configuration
  ) { benchmark in
    let store = Store(initialState: 0) {
      ExistentialClockReader()
    } withDependencies: {
      $0.continuousClock = ContinuousClock()
    }
    await measureSends(benchmark, to: store)
  }

  Benchmark(
    "Store.send reading a @Dependency of a concrete type set by withDependencies",
    configuration: configuration
  ) { benchmark in
    let store = Store(initialState: 0) {
      ConcreteSleeperReader()
    } withDependencies: {
      $0[Sleeper.self] = Sleeper { try await ContinuousClock().sleep(for: $0) }
    }
    await measureSends(benchmark, to: store)
  }

  Benchmark(
    "Store.send reading a @Dependency of a concrete type",
    configuration: configuration
  ) { benchmark in
    await measureSends(benchmark, to: Store(initialState: 0) { ConcreteSleeperReader() })
  }

  Benchmark("Store.send reading no dependency", configuration: configuration) { benchmark in
    let store = Store(initialState: 0) {
      Reduce<Int, Void> { count, _ in
        count &+= 1
        return .none
      }
    }
    await measureSends(benchmark, to: store)
  }
}

/// Sends the benchmark's scaled iterations of `()` to `store`, awaited one at a time.
func measureSends(_ benchmark: Benchmark, to store: Store<Int, Void>) async {
  benchmark.startMeasurement()
  for _ in benchmark.scaledIterations { await store.send(()) }
  benchmark.stopMeasurement()
  blackHole(await store.state)
}

/// Reads the clock in each action, as a reducer that arms a timer does.
struct ExistentialClockReader: Reducer {
  @Dependency(\.continuousClock) var clock

  func reduce(into count: inout Int, action: Void) -> Effect<Void> {
    let clock = clock
    blackHole(clock)
    count &+= 1
    return .none
  }
}

/// The same read of a dependency client: a struct whose value casts to a concrete type.
struct ConcreteSleeperReader: Reducer {
  @Dependency(Sleeper.self) var sleeper

  func reduce(into count: inout Int, action: Void) -> Effect<Void> {
    let sleeper = sleeper
    blackHole(sleeper)
    count &+= 1
    return .none
  }
}

/// A dependency client that sleeps on a clock, as TCA's dependency clients wrap their
/// operations in a struct of closures.
struct Sleeper: DependencyKey, Sendable {
  var sleep: @Sendable (Duration) async throws -> Void

  static let liveValue = Sleeper { try await ContinuousClock().sleep(for: $0) }
}

// Restarting a long effect with `cancelInFlight`: one cancellation and one new effect per
// action. The benchmark fails loudly if any effect is left running.
import Benchmark
import Spool
import SpoolWorkloads

let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .init(
    metrics: [.wallClock, .throughput, .mallocCountTotal],
    scalingFactor: .kilo,
    maxDuration: .seconds(2),
    maxIterations: 50
  )

  Benchmark("Effect.cancellable(cancelInFlight:) restart") { benchmark in
    let store = Store(initialState: CancellationFeature.State()) { CancellationFeature() }
    benchmark.startMeasurement()
    for index in benchmark.scaledIterations { store.enqueue(.restart(index)) }
    store.enqueue(.stop)
    await store.finish()
    benchmark.stopMeasurement()
    precondition(store.runningEffectCount == 0, "effects left running after cancellation")
    blackHole(await store.state.restarts)
  }
}

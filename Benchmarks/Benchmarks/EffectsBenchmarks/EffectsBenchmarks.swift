// Effect round trips: an action starts a `.run` effect that sends a response back. Gate on
// allocations per round trip (`mallocCountTotal` / scaled iterations).
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

  Benchmark("Effect.run round trip (windows of 1,000)") { benchmark in
    let store = Store(initialState: EffectsFeature.State()) { EffectsFeature() }
    let total = benchmark.scaledIterations.count
    benchmark.startMeasurement()
    var start = 0
    while start < total {
      let end = min(start + 1_000, total)
      for value in start..<end { store.enqueue(.request(value)) }
      await store.finish()
      start = end
    }
    benchmark.stopMeasurement()
    blackHole(await store.state.responses)
  }

  Benchmark("Baseline: plain actor, a Task per request awaiting its reply") { benchmark in
    let total = benchmark.scaledIterations.count
    let server = ReplyingActor()
    benchmark.startMeasurement()
    var start = 0
    while start < total {
      let end = min(start + 1_000, total)
      for value in start..<end { await server.request(value) }
      await server.waitForReplies(end)
      start = end
    }
    benchmark.stopMeasurement()
    blackHole(await server.replies)
  }
}

/// Starts an unstructured task per request; the task replies to the actor.
actor ReplyingActor {
  var replies = 0
  private var waiter: (target: Int, continuation: CheckedContinuation<Void, Never>)?

  func request(_ value: Int) {
    Task { self.reply(value) }
  }

  private func reply(_ value: Int) {
    replies += 1
    if let waiter, replies >= waiter.target {
      self.waiter = nil
      waiter.continuation.resume()
    }
  }

  func waitForReplies(_ target: Int) async {
    guard replies < target else { return }
    await withCheckedContinuation { waiter = (target, $0) }
  }
}

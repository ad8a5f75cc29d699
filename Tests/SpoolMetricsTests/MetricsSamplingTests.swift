import Metrics
import MetricsTestKit
import Spool
import SpoolMetrics
import Testing

/// `MetricsInstrumentation(sampling:)`: every action counted in `spool_actions_total`, the
/// histograms (or timers) fed by the timed ones only.
@Suite struct MetricsSamplingTests {
  typealias Labels = StoreMetricLabels

  func caseDimensions(_ action: String) -> [(String, String)] {
    [(Labels.store, "feature"), (Labels.action, action)]
  }

  static let recording = MetricsRecording.histograms(
    buckets: [.microseconds(1), .microseconds(10)], publishEvery: .seconds(3_600))

  @Test func countsEveryActionAndHistogramsTheTimedOnes() throws {
    let metrics = TestMetrics()
    let instrumentation = MetricsInstrumentation<Feature.Action>(
      store: "feature", recording: Self.recording, sampling: .oneIn(4), factory: metrics)
    #expect(instrumentation.timingSampling == .oneIn(4))
    instrumentation.actionReduced(.tap, enqueuedAt: 0, startedAt: 500, endedAt: 1_500)
    for _ in 0..<3 { instrumentation.actionCounted(.tap) }
    instrumentation.actionReduced(.child(.increment), enqueuedAt: 0, startedAt: 0, endedAt: 5)
    for _ in 0..<7 { instrumentation.actionCounted(.child(.increment)) }
    instrumentation.publish()

    let tapActions = try metrics.expectCounter(Labels.actions, caseDimensions("tap"))
    #expect(tapActions.totalValue == 4)
    let child = caseDimensions("child(.increment)")
    #expect(try metrics.expectCounter(Labels.actions, child).totalValue == 8)
    #expect(
      try metrics.expectCounter(Labels.reduce + "_count", caseDimensions("tap")).totalValue == 1)
    #expect(try metrics.expectCounter(Labels.reduce + "_count", child).totalValue == 1)
    #expect(
      try metrics.expectCounter(
        Labels.reduce + "_bucket", caseDimensions("tap") + [(Labels.bucketBound, "1e-06")]
      ).totalValue == 1)

    // Only counted actions since: the counter moves, the histogram does not.
    for _ in 0..<5 { instrumentation.actionCounted(.tap) }
    instrumentation.publish()
    #expect(tapActions.totalValue == 9)
    #expect(
      try metrics.expectCounter(Labels.reduce + "_count", caseDimensions("tap")).totalValue == 1)
  }

  @Test func withoutSamplingThereIsNoActionCounter() throws {
    let metrics = TestMetrics()
    let instrumentation = MetricsInstrumentation<Feature.Action>(
      store: "feature", recording: Self.recording, factory: metrics)
    instrumentation.actionReduced(.tap, enqueuedAt: 0, startedAt: 500, endedAt: 1_500)
    instrumentation.publish()
    #expect(throws: (any Error).self) {
      try metrics.expectCounter(Labels.actions, caseDimensions("tap"))
    }
  }

  @Test func timersCountEveryActionToo() throws {
    let metrics = TestMetrics()
    let instrumentation = MetricsInstrumentation<Feature.Action>(
      store: "feature", recording: .timers, sampling: .oneIn(8), factory: metrics)
    instrumentation.actionReduced(.tap, enqueuedAt: 100, startedAt: 150, endedAt: 190)
    for _ in 0..<7 { instrumentation.actionCounted(.tap) }
    #expect(try metrics.expectTimer(Labels.reduce, caseDimensions("tap")).values == [40])
    #expect(try metrics.expectCounter(Labels.actions, caseDimensions("tap")).totalValue == 8)
  }

  @Test func aSampledStoreFeedsExactCountsAndSampledHistograms() async throws {
    let metrics = TestMetrics()
    let instrumentation = MetricsInstrumentation<Feature.Action>(
      store: "feature", recording: Self.recording, sampling: .oneIn(10), factory: metrics)
    let store = Store(initialState: Feature.State(), instrumentation: instrumentation) {
      Feature()
    }
    // Sent one at a time, each reduced on the caller: exactly every tenth is timed.
    for _ in 0..<1_000 { await store.send(.tap) }
    await store.finish()
    instrumentation.publish()
    #expect(try metrics.expectCounter(Labels.actions, caseDimensions("tap")).totalValue == 1_000)
    #expect(
      try metrics.expectCounter(Labels.reduce + "_count", caseDimensions("tap")).totalValue
        == 100)
    #expect(
      try metrics.expectCounter(Labels.queueWait + "_count", caseDimensions("tap")).totalValue
        == 100)
  }

  @Test func storesThatGoAwayKeepTheirCountsAndStoresAddUp() async throws {
    let metrics = TestMetrics()
    let instrumentation = MetricsInstrumentation<Feature.Action>(
      store: "feature", recording: Self.recording, sampling: .oneIn(16), factory: metrics)
    // The untimed actions of both stores are counted in the stores' own cells; the first
    // store is gone before the publication, which must still see what it counted.
    do {
      let gone = Store(initialState: Feature.State(), instrumentation: instrumentation) {
        Feature()
      }
      for _ in 0..<100 { await gone.send(.tap) }
      for _ in 0..<5 { await gone.send(.child(.increment)) }
      await gone.finish()
    }
    let live = Store(initialState: Feature.State(), instrumentation: instrumentation) {
      Feature()
    }
    for _ in 0..<60 { live.enqueue(.tap) }
    await live.finish()
    instrumentation.publish()
    let tap = try metrics.expectCounter(Labels.actions, caseDimensions("tap"))
    #expect(tap.totalValue == 160)
    let child = caseDimensions("child(.increment)")
    #expect(try metrics.expectCounter(Labels.actions, child).totalValue == 5)

    // A publication adds only what was counted since the last one.
    for _ in 0..<40 { await live.send(.tap) }
    instrumentation.publish()
    #expect(tap.totalValue == 200)
    instrumentation.publish()
    #expect(tap.totalValue == 200)
  }

  @Test func untimedActionsArePublishedWithoutATimedOne() async throws {
    let metrics = TestMetrics()
    let instrumentation = MetricsInstrumentation<Feature.Action>(
      store: "feature", recording: .histograms(publishEvery: .milliseconds(10)),
      sampling: .oneIn(1_000_000), factory: metrics)
    let store = Store(initialState: Feature.State(), instrumentation: instrumentation) {
      Feature()
    }
    // The first `send` is timed and starts the publishing task, which stops after an idle
    // interval; the next ones are untimed, counted by the store alone, and must restart it.
    await store.send(.tap)
    let tap = try await publishedCount(metrics, atLeast: 1)
    try await Task.sleep(for: .milliseconds(100))
    for _ in 0..<5 { await store.send(.tap) }
    _ = try await publishedCount(metrics, atLeast: 6)
    #expect(tap.totalValue == 6)
    #expect(
      try metrics.expectCounter(Labels.reduce + "_count", caseDimensions("tap")).totalValue == 1)
  }

  /// The `tap` action counter once the publishing task published at least `count`: a bounded
  /// wait, since how soon it publishes is not what is tested.
  func publishedCount(_ metrics: TestMetrics, atLeast count: Int64) async throws -> TestCounter {
    for _ in 0..<6_000 {
      if let counter = try? metrics.expectCounter(Labels.actions, caseDimensions("tap")),
        counter.totalValue >= count
      {
        return counter
      }
      try await Task.sleep(for: .milliseconds(10))
    }
    return try metrics.expectCounter(Labels.actions, caseDimensions("tap"))
  }

  @Test func combinedPartsSampleTogetherOnlyWhenTheyAgree() {
    let metrics = TestMetrics()
    let sampled = MetricsInstrumentation<Feature.Action>(
      store: "a", sampling: .oneIn(64), factory: metrics)
    let alsoSampled = MetricsInstrumentation<Feature.Action>(
      store: "b", sampling: .oneIn(64), factory: metrics)
    let every = MetricsInstrumentation<Feature.Action>(store: "c", factory: metrics)
    #expect(CombinedInstrumentation(sampled, alsoSampled).timingSampling == .oneIn(64))
    #expect(CombinedInstrumentation(sampled, every).timingSampling == .everyAction)
  }
}

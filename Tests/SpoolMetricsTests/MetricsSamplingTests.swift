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

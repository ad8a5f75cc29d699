import Metrics
import MetricsTestKit
import Spool
import SpoolMetrics
import Testing

/// `MetricsInstrumentation` with histogram recording: counts kept per case, published as
/// Prometheus's cumulative bucket counters with a sum and a count.
@Suite struct MetricsHistogramTests {
  typealias Labels = StoreMetricLabels

  func caseDimensions(_ action: String) -> [(String, String)] {
    [(Labels.store, "feature"), (Labels.action, action)]
  }

  /// The total of `label`'s `_bucket` counter of `action` with bound `bound`.
  func bucket(
    _ metrics: TestMetrics, _ label: String, _ action: String, _ bound: String
  ) throws -> Int64 {
    try metrics.expectCounter(
      label + "_bucket", caseDimensions(action) + [(Labels.bucketBound, bound)]
    ).totalValue
  }

  /// Three bounds, published only when the test says.
  static let recording = MetricsRecording.histograms(
    buckets: [.microseconds(10), .microseconds(1), .milliseconds(1)],
    publishEvery: .seconds(3_600))

  @Test func countsIntoBucketsAndPublishesCumulativeCounters() throws {
    let metrics = TestMetrics()
    let instrumentation = MetricsInstrumentation<Feature.Action>(
      store: "feature", recording: Self.recording, factory: metrics)
    // Queue waits 500 ns, 5 µs, 2 ms; reduce times 1 µs (on a bound), 10,001 ns, 0.
    instrumentation.actionReduced(.tap, enqueuedAt: 0, startedAt: 500, endedAt: 1_500)
    instrumentation.actionReduced(.tap, enqueuedAt: 0, startedAt: 5_000, endedAt: 15_001)
    instrumentation.actionReduced(
      .tap, enqueuedAt: 0, startedAt: 2_000_000, endedAt: 2_000_000)
    // Nothing reaches the backend before a publication.
    #expect(metrics.counters.isEmpty)
    instrumentation.publish()

    let wait = Labels.queueWait
    #expect(try bucket(metrics, wait, "tap", "1e-06") == 1)
    #expect(try bucket(metrics, wait, "tap", "1e-05") == 2)
    #expect(try bucket(metrics, wait, "tap", "0.001") == 2)
    #expect(try bucket(metrics, wait, "tap", "+Inf") == 3)
    #expect(try metrics.expectCounter(wait + "_count", caseDimensions("tap")).totalValue == 3)
    let reduce = Labels.reduce
    #expect(try bucket(metrics, reduce, "tap", "1e-06") == 2)
    #expect(try bucket(metrics, reduce, "tap", "1e-05") == 2)
    #expect(try bucket(metrics, reduce, "tap", "0.001") == 3)
    #expect(try bucket(metrics, reduce, "tap", "+Inf") == 3)

    // A second publication adds what came since, and only that.
    instrumentation.actionReduced(.tap, enqueuedAt: 0, startedAt: 100, endedAt: 100)
    instrumentation.actionReduced(.response, enqueuedAt: 0, startedAt: 0, endedAt: 50_000)
    instrumentation.publish()
    instrumentation.publish()
    #expect(try bucket(metrics, wait, "tap", "1e-06") == 2)
    #expect(try bucket(metrics, wait, "tap", "+Inf") == 4)
    #expect(try metrics.expectCounter(wait + "_count", caseDimensions("tap")).totalValue == 4)
    #expect(try bucket(metrics, reduce, "response", "1e-05") == 0)
    #expect(try bucket(metrics, reduce, "response", "0.001") == 1)
    #expect(
      try metrics.expectCounter(reduce + "_count", caseDimensions("response")).totalValue == 1)
  }

  @Test func sumsAreInSeconds() throws {
    let metrics = TestMetrics()
    let instrumentation = MetricsInstrumentation<Feature.Action>(
      store: "feature", recording: Self.recording, factory: metrics)
    // 2 s and 3 s of reduce time: whole seconds, which the test backend's counter of
    // floating-point increments (rounded to integers) shows exactly.
    instrumentation.actionReduced(.tap, enqueuedAt: 0, startedAt: 0, endedAt: 2_000_000_000)
    instrumentation.actionReduced(.tap, enqueuedAt: 0, startedAt: 0, endedAt: 3_000_000_000)
    instrumentation.publish()
    let sum = try metrics.expectCounter(Labels.reduce + "_sum", caseDimensions("tap"))
    #expect(sum.totalValue == 5)
    #expect(try bucket(metrics, Labels.reduce, "tap", "+Inf") == 2)
    #expect(try bucket(metrics, Labels.reduce, "tap", "0.001") == 0)
  }

  @Test func publishesByItselfAfterTheInterval() async throws {
    let metrics = TestMetrics()
    let instrumentation = MetricsInstrumentation<Feature.Action>(
      store: "feature", recording: .histograms(publishEvery: .milliseconds(10)),
      factory: metrics)
    instrumentation.actionReduced(.tap, enqueuedAt: 0, startedAt: 10, endedAt: 20)
    // Bounded wait for the publication task; how soon it comes is not what is tested.
    var published = false
    for _ in 0..<6_000 where !published {
      try await Task.sleep(for: .milliseconds(10))
      published = metrics.counters.contains { $0.label == Labels.reduce + "_count" }
    }
    #expect(published)
    let count = try metrics.expectCounter(Labels.reduce + "_count", caseDimensions("tap"))
    #expect(count.totalValue == 1)
  }

  @Test func aLiveStoreIsCountedPerCase() async throws {
    let metrics = TestMetrics()
    let instrumentation = MetricsInstrumentation<Feature.Action>(
      store: "feature", recording: Self.recording, factory: metrics)
    let store = Store(initialState: Feature.State(), instrumentation: instrumentation) {
      Feature()
    }
    await store.runScript()
    instrumentation.publish()
    let expectedCounts: [String: Int64] = [
      "tap": 100, "child(.increment)": 3, "startEffect": 1, "response": 2, "startLong": 2,
      "stopLong": 1, "fail": 1, "child(.startEffect)": 1,
    ]
    for (action, count) in expectedCounts {
      for label in [Labels.queueWait, Labels.reduce] {
        let total = try metrics.expectCounter(label + "_count", caseDimensions(action))
        #expect(total.totalValue == count, "\(label) of \(action)")
        #expect(try bucket(metrics, label, action, "+Inf") == count, "\(label) of \(action)")
      }
    }
    #expect(metrics.timers.isEmpty)
  }

  @Test func badBucketsAndIntervalsAreReportedAndReplaced() {
    withKnownIssue {
      _ = MetricsRecording.histograms(buckets: [.zero, .seconds(-1)])
    } matching: { issue in
      issue.description.contains("is not positive")
        || issue.description.contains("no bucket bound is positive")
    }
    withKnownIssue {
      _ = MetricsRecording.histograms(publishEvery: .zero)
    } matching: { $0.description.contains("the interval 0") }
    // Replaced: the defaults stand in for no positive bound, one second for the interval.
    withKnownIssue {
      let replaced = MetricsRecording.histograms(buckets: [.zero], publishEvery: .seconds(-2))
      #expect(replaced == MetricsRecording.histograms())
    }
    #expect(
      MetricsRecording.histograms(buckets: [.seconds(2), .seconds(1), .seconds(2)])
        == MetricsRecording.histograms(buckets: [.seconds(1), .seconds(2)]))
  }
}

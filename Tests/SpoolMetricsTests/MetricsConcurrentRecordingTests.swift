import Foundation
import Metrics
import MetricsTestKit
import Spool
import SpoolMetrics
import Synchronization
import Testing

/// Histogram recording from several threads at once while another task publishes over and over:
/// no count is lost or counted twice, whatever the interleaving.
@Suite struct MetricsConcurrentRecordingTests {
  typealias Labels = StoreMetricLabels

  static let recorders = 4
  /// Enough for the recorders to overlap the publisher many times, and few enough that four
  /// threads recording flat out do not starve the other suites' tasks of both cores for
  /// minutes (under ThreadSanitizer, 200,000 each did: dozens of other tests hit their time
  /// limits).
  static let actionsPerRecorder = 20_000

  func caseDimensions(_ action: String) -> [(String, String)] {
    [(Labels.store, "feature"), (Labels.action, action)]
  }

  /// What recorder `recorder` records as its `index`th action: three cases (one nested, which
  /// takes the lookup's slow path), queue waits spread over the buckets, and reduce times in
  /// whole seconds so that the test backend's rounded sums are exact.
  static func action(
    _ recorder: Int, _ index: Int
  ) -> (action: Feature.Action, queueWait: UInt64, reduceSeconds: UInt64) {
    let actions: [Feature.Action] = [.tap, .response, .child(.increment)]
    let waits: [UInt64] = [500, 5_000, 2_000_000, 1_000]
    return (
      actions[(recorder + index) % 3], waits[index % 4], UInt64((recorder + index) % 3 + 1)
    )
  }

  @Test func countsFromSeveralThreadsAddUpExactlyWhilePublishing() async throws {
    let metrics = TestMetrics()
    let instrumentation = MetricsInstrumentation<Feature.Action>(
      store: "feature", recording: MetricsHistogramTests.recording, factory: metrics)
    let finished = FinishedRecorders()
    // Threads, not tasks: each records on a thread of its own, truly at the same time as the
    // others and as the publisher, whatever the width of the test's task pool.
    for recorder in 0..<Self.recorders {
      Thread.detachNewThread {
        // Start together, so that the threads overlap instead of running one after another.
        finished.started.add(1, ordering: .relaxed)
        while finished.started.load(ordering: .relaxed) < Self.recorders { sched_yield() }
        for index in 0..<Self.actionsPerRecorder {
          let (action, wait, seconds) = Self.action(recorder, index)
          instrumentation.actionReduced(
            action, enqueuedAt: 0, startedAt: wait, endedAt: wait + seconds * 1_000_000_000)
        }
        finished.count.add(1, ordering: .releasing)
      }
    }
    // The publisher: over and over until every recorder is done (each does a bounded amount).
    var publications = 0
    while finished.count.load(ordering: .acquiring) < Self.recorders {
      instrumentation.publish()
      publications += 1
      // Paces the publisher (the test backend keeps every increment); not a wait for a result.
      try await Task.sleep(for: .milliseconds(1))
    }
    instrumentation.publish()
    #expect(publications > 0)

    // The expected totals, computed from the same script.
    struct Expected {
      var count: Int64 = 0
      var buckets = [Int64](repeating: 0, count: 4)
      var reduceSeconds: Int64 = 0
    }
    func label(_ action: Feature.Action) -> String {
      switch action {
      case .tap: "tap"
      case .response: "response"
      default: "child(.increment)"
      }
    }
    var expected: [String: Expected] = [:]
    let bounds: [UInt64] = [1_000, 10_000, 1_000_000]
    for recorder in 0..<Self.recorders {
      for index in 0..<Self.actionsPerRecorder {
        let (action, wait, seconds) = Self.action(recorder, index)
        let label = label(action)
        var entry = expected[label, default: Expected()]
        entry.count += 1
        let bucket = bounds.firstIndex { wait <= $0 } ?? bounds.count
        for cumulative in bucket..<4 { entry.buckets[cumulative] += 1 }
        entry.reduceSeconds += Int64(seconds)
        expected[label] = entry
      }
    }
    let total = expected.values.reduce(0) { $0 + $1.count }
    #expect(total == Int64(Self.recorders * Self.actionsPerRecorder))
    for (label, entry) in expected {
      for kind in [Labels.queueWait, Labels.reduce] {
        let count = try metrics.expectCounter(kind + "_count", caseDimensions(label))
        #expect(count.totalValue == entry.count, "\(kind) of \(label)")
      }
      for (bound, total) in zip(["1e-06", "1e-05", "0.001", "+Inf"], entry.buckets) {
        let bucket = try metrics.expectCounter(
          Labels.queueWait + "_bucket", caseDimensions(label) + [(Labels.bucketBound, bound)])
        #expect(bucket.totalValue == total, "queue wait bucket \(bound) of \(label)")
      }
      let reduceInf = try metrics.expectCounter(
        Labels.reduce + "_bucket", caseDimensions(label) + [(Labels.bucketBound, "+Inf")])
      #expect(reduceInf.totalValue == entry.count, "reduce +Inf of \(label)")
      let sum = try metrics.expectCounter(Labels.reduce + "_sum", caseDimensions(label))
      #expect(sum.totalValue == entry.reduceSeconds, "reduce sum of \(label)")
    }
  }

  @Test func storesOnSeveralThreadsShareOneInstrumentation() async throws {
    let metrics = TestMetrics()
    let instrumentation = MetricsInstrumentation<Feature.Action>(
      store: "feature", recording: MetricsHistogramTests.recording, factory: metrics)
    // Three stores, one instrumentation: their figures add up under one label.
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<3 {
        group.addTask {
          let store = Store(initialState: Feature.State(), instrumentation: instrumentation) {
            Feature()
          }
          for _ in 0..<500 { store.enqueue(.tap) }
          for _ in 0..<5 { await store.send(.child(.increment)) }
          await store.finish()
        }
      }
      for _ in 0..<20 {
        instrumentation.publish()
        await Task.yield()
      }
    }
    instrumentation.publish()
    let taps = try metrics.expectCounter(Labels.reduce + "_count", caseDimensions("tap"))
    #expect(taps.totalValue == 1_500)
    let nested = try metrics.expectCounter(
      Labels.queueWait + "_count", caseDimensions("child(.increment)"))
    #expect(nested.totalValue == 15)
  }
}

/// How many recorders of a test have started, and how many are done.
private final class FinishedRecorders: Sendable {
  let started = Atomic<Int>(0)
  let count = Atomic<Int>(0)
}

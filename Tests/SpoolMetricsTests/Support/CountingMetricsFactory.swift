import Metrics
import MetricsTestKit
import Synchronization

/// A `TestMetrics` that also counts how many times each kind of metric was asked for, so that
/// a test can tell that an instrumentation creates its metric objects once, not per action.
final class CountingMetricsFactory: MetricsFactory {
  let metrics = TestMetrics()
  private let made = Mutex<[String: Int]>([:])

  /// How many handlers of `kind` (`counter`, `meter`, `recorder`, `timer`) were made.
  func madeCount(_ kind: String) -> Int { made.withLock { $0[kind, default: 0] } }

  private func count(_ kind: String) { made.withLock { $0[kind, default: 0] += 1 } }

  func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
    count("counter")
    return metrics.makeCounter(label: label, dimensions: dimensions)
  }

  func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
    count("meter")
    return metrics.makeMeter(label: label, dimensions: dimensions)
  }

  func makeRecorder(
    label: String, dimensions: [(String, String)], aggregate: Bool
  ) -> any RecorderHandler {
    count("recorder")
    return metrics.makeRecorder(label: label, dimensions: dimensions, aggregate: aggregate)
  }

  func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
    count("timer")
    return metrics.makeTimer(label: label, dimensions: dimensions)
  }

  func destroyCounter(_ handler: any CounterHandler) { metrics.destroyCounter(handler) }
  func destroyMeter(_ handler: any MeterHandler) { metrics.destroyMeter(handler) }
  func destroyRecorder(_ handler: any RecorderHandler) { metrics.destroyRecorder(handler) }
  func destroyTimer(_ handler: any TimerHandler) { metrics.destroyTimer(handler) }
}

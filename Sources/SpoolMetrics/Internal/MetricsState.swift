import Metrics
import SpoolCore
import SpoolProfiling

/// The metric objects of ``MetricsInstrumentation``, one set per action case, created on a
/// case's first sight and kept for the instrumentation's lifetime.
///
/// Not generic, for the reason `ActionCaseTable` gives: actions arrive as raw bytes from the
/// store's unspecialized generic code. Not thread-safe: the instrumentation keeps it in a
/// `Mutex`.
struct MetricsState {
  /// The timers of one action case.
  final class ActionMetrics: Sendable {
    let queueWait: Timer
    let reduce: Timer

    init(queueWait: Timer, reduce: Timer) {
      self.queueWait = queueWait
      self.reduce = reduce
    }
  }

  /// The effect counters of one action case, one per outcome.
  final class EffectMetrics: Sendable {
    let finished: Counter
    let cancelled: Counter
    let failed: Counter

    init(finished: Counter, cancelled: Counter, failed: Counter) {
      self.finished = finished
      self.cancelled = cancelled
      self.failed = failed
    }

    func counter(for outcome: EffectOutcome) -> Counter {
      switch outcome {
      case .finished: finished
      case .cancelled: cancelled
      case .failed: failed
      }
    }
  }

  private var table: ActionCaseTable
  // Indexed by the table's slots; `nil` until the case is first reduced (or first ends an
  // effect), so that a backend exports no series for cases it never saw.
  private var actions: [ActionMetrics?] = []
  private var effects: [EffectMetrics?] = []
  private let store: String
  private let factory: any MetricsFactory

  init(
    actionType: Any.Type, size: Int, alignment: Int, store: String, factory: any MetricsFactory
  ) {
    table = ActionCaseTable(actionType: actionType, size: size, alignment: alignment)
    self.store = store
    self.factory = factory
  }

  /// The timers of the case of the action at `action`, created on the case's first sight.
  ///
  /// - Complexity: O(nesting depth of the case) and no allocation, once the case has been seen.
  mutating func actionMetrics(forValueAt action: ActionAddress) -> ActionMetrics {
    let slot = table.slot(ofValueAt: action.pointer)
    if slot < actions.count, let metrics = actions[slot] { return metrics }
    let dimensions = caseDimensions(slot)
    let metrics = ActionMetrics(
      queueWait: Timer(
        label: StoreMetricLabels.queueWait, dimensions: dimensions, factory: factory),
      reduce: Timer(label: StoreMetricLabels.reduce, dimensions: dimensions, factory: factory))
    store(metrics, at: slot, in: &actions)
    return metrics
  }

  /// The effect counters of the case of the action at `action`, created on first use.
  ///
  /// - Complexity: O(nesting depth of the case) and no allocation, once the case has been seen.
  mutating func effectMetrics(forValueAt action: ActionAddress) -> EffectMetrics {
    let slot = table.slot(ofValueAt: action.pointer)
    if slot < effects.count, let metrics = effects[slot] { return metrics }
    let dimensions = caseDimensions(slot)
    func counter(_ outcome: EffectOutcome) -> Counter {
      Counter(
        label: StoreMetricLabels.effects,
        dimensions: dimensions + [(StoreMetricLabels.outcome, outcome.rawValue)],
        factory: factory)
    }
    let metrics = EffectMetrics(
      finished: counter(.finished), cancelled: counter(.cancelled), failed: counter(.failed))
    store(metrics, at: slot, in: &effects)
    return metrics
  }

  private func caseDimensions(_ slot: Int) -> [(String, String)] {
    [(StoreMetricLabels.store, store), (StoreMetricLabels.action, table.labels[slot])]
  }

  private func store<Metrics>(_ metrics: Metrics, at slot: Int, in array: inout [Metrics?]) {
    if array.count <= slot { array += repeatElement(nil, count: slot + 1 - array.count) }
    array[slot] = metrics
  }
}

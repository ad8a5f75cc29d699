import Metrics
import SpoolCore
import SpoolProfiling

/// The metric objects of ``MetricsInstrumentation``, one set per action case, created on a
/// case's first sight (a histogram's counters on its first publication) and kept for the
/// instrumentation's lifetime, with histogram recording's unpublished counts.
///
/// Not generic, for the reason `ActionCaseTable` gives: actions arrive as raw bytes from the
/// store's unspecialized generic code. Not thread-safe: the instrumentation keeps it in a
/// `Mutex`.
struct MetricsState {
  /// The timers of one action case.
  final class ActionMetrics: Sendable {
    let queueWait: Timer
    let reduce: Timer
    /// Every action of the case, timed or not; only when sampling.
    let actions: Counter?

    init(queueWait: Timer, reduce: Timer, actions: Counter?) {
      self.queueWait = queueWait
      self.reduce = reduce
      self.actions = actions
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

  /// What one publication adds to the counters of one case's two histograms.
  struct HistogramPublication {
    var queueWait: (counters: HistogramCounters, counts: PendingHistograms.Counts)
    var reduce: (counters: HistogramCounters, counts: PendingHistograms.Counts)
    /// When sampling: the case's action counter, and the actions reduced since the last
    /// publication, timed or not.
    var actions: (counter: Counter, count: UInt64)?

    func publish() {
      queueWait.counters.publish(queueWait.counts)
      reduce.counters.publish(reduce.counts)
      if let actions, actions.count > 0 {
        actions.counter.increment(by: Int64(clamping: actions.count))
      }
    }
  }

  private var table: ActionCaseTable
  /// Reads an action's top-level case without the lock.
  var tagReader: ActionTagReader { table.tagReader }
  /// Histogram recording's unpublished counts; `nil` when recording timers.
  private var pending: PendingHistograms?
  // Indexed by the table's slots, created at a case's first publication.
  private var histograms: [(queueWait: HistogramCounters, reduce: HistogramCounters)?] = []
  // Indexed by the table's slots; `nil` until the case is first reduced (or first ends an
  // effect), so that a backend exports no series for cases it never saw.
  private var actions: [ActionMetrics?] = []
  private var effects: [EffectMetrics?] = []
  // Indexed by the table's slots, created at a case's first publication; only when sampling.
  private var actionCounters: [Counter?] = []
  /// Whether the instrumentation samples: then every action is also counted, in a
  /// ``StoreMetricLabels/actions`` counter per case.
  private let countsActions: Bool
  /// The cells of the stores that count their untimed actions themselves (sampling with
  /// histograms); ``takePending()`` publishes them with the threads' counts.
  private var storeCounts = StoreCaseCountsRegistry()
  private let store: String
  private let factory: any MetricsFactory

  /// - Parameter bounds: The histogram buckets' bounds in nanoseconds, or `nil` for timers.
  init(
    actionType: Any.Type, size: Int, alignment: Int, store: String,
    factory: any MetricsFactory, bounds: [UInt64]?, countsActions: Bool
  ) {
    self.countsActions = countsActions
    table = ActionCaseTable(actionType: actionType, size: size, alignment: alignment)
    let topSlotCount = table.tagReader.caseCount
    pending = bounds.map { PendingHistograms(bounds: $0, topSlotCount: topSlotCount) }
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
      reduce: Timer(label: StoreMetricLabels.reduce, dimensions: dimensions, factory: factory),
      actions: countsActions
        ? Counter(label: StoreMetricLabels.actions, dimensions: dimensions, factory: factory)
        : nil)
    store(metrics, at: slot, in: &actions)
    return metrics
  }

  /// The slow path of histogram recording: the slot of the action at `action` (learned on
  /// first sight), the calling thread's cells grown to hold it, and whether it is the top-level
  /// leaf case `tag`.
  mutating func locate(
    valueAt action: ActionAddress, topLevelTag tag: Int
  ) -> (slot: Int, cells: ThreadCells, isTopLevelLeaf: Bool) {
    let slot = table.slot(ofValueAt: action.pointer)
    guard let cells = pending?.currentThreadCellsLocked(holding: slot) else {
      preconditionFailure("Internal inconsistency: histogram recording without histograms")
    }
    return (slot, cells, table.leafSlot(topLevelTag: tag) == slot)
  }

  /// Frees the histogram storage of every thread: the instrumentation is going away.
  mutating func deallocate() {
    pending?.deallocate()
    storeCounts.deallocate()
  }

  /// Cells for one more store that counts its untimed actions itself; see
  /// `StoreCaseCounts.Pickup` for `pickup`.
  mutating func makeStoreCounts(
    owner: any StoreCaseCountingInstrumentation, pickup: StoreCaseCounts.Pickup
  ) -> StoreCaseCounts {
    storeCounts.make(table: &table, owner: owner, pickup: pickup)
  }

  /// Adds a departing store's counts to the retired stores' and forgets its cells.
  mutating func retireStoreCounts(id: Int) {
    storeCounts.retire(id: id)
  }

  /// Takes every unpublished count (the threads' and the stores' own) with the counters it
  /// goes to, creating the counters of a case at its first publication.
  mutating func takePending() -> [HistogramPublication] {
    var storeUntimed: [UInt64] = []
    storeCounts.addUntimed(to: &storeUntimed)
    guard let taken = pending?.takeLocked(storeUntimed: storeUntimed),
      let bounds = pending?.bounds
    else { return [] }
    return taken.map { entry in
      let counters: (queueWait: HistogramCounters, reduce: HistogramCounters)
      if entry.slot < histograms.count, let existing = histograms[entry.slot] {
        counters = existing
      } else {
        let dimensions = caseDimensions(entry.slot)
        counters = (
          queueWait: HistogramCounters(
            label: StoreMetricLabels.queueWait, bounds: bounds, dimensions: dimensions,
            factory: factory),
          reduce: HistogramCounters(
            label: StoreMetricLabels.reduce, bounds: bounds, dimensions: dimensions,
            factory: factory)
        )
        store(counters, at: entry.slot, in: &histograms)
      }
      var actions: (counter: Counter, count: UInt64)?
      if countsActions {
        actions = (actionCounter(entry.slot), entry.reduce.total &+ entry.untimed)
      }
      return HistogramPublication(
        queueWait: (counters.queueWait, entry.queueWait), reduce: (counters.reduce, entry.reduce),
        actions: actions)
    }
  }

  /// The action counter of `slot`'s case, created on first use; when sampling.
  private mutating func actionCounter(_ slot: Int) -> Counter {
    if slot < actionCounters.count, let counter = actionCounters[slot] { return counter }
    let counter = Counter(
      label: StoreMetricLabels.actions, dimensions: caseDimensions(slot), factory: factory)
    store(counter, at: slot, in: &actionCounters)
    return counter
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

import Histogram
import SpoolCore

/// Everything a ``LatencyRecorder`` has recorded: the case table, one pair of histograms per
/// action case, effect counters, totals and the trace rings.
///
/// A plain value with synchronous methods, so that tests drive it directly; the recorder keeps
/// it in a `Mutex`. Not generic, for the reason ``ActionCaseTable`` gives: actions arrive as
/// the address of a value of the action type the state was made for. Memory is bounded by the
/// number of distinct action cases and the trace capacity, never by the number of actions.
struct RecorderState {
  /// Per action case; the counts write through to their buffers, so the array is only read on
  /// the hot path (no uniqueness check).
  struct CaseStatistics {
    let queueWait: LatencyCounts
    let reduce: LatencyCounts
  }

  struct EffectStatistics {
    var started = 0
    var finished = 0
    var cancelled = 0
    var failed = 0
    var lifetime = Histogram<UInt64>.latency()
  }

  private var table: ActionCaseTable
  /// Owns every case's counts; lives as long as the state.
  private let arena = LatencyCountsArena()
  /// Indexed by slot; grown when the table learns a case.
  private var cases: [CaseStatistics] = []
  /// Indexed by slot; `nil` for cases that never started an effect.
  private var effects: [EffectStatistics?] = []
  /// Indexed by slot: actions the store reduced without timing them (sampling).
  private var counted: [Int] = []
  private var actions = 0
  private var firstEnqueue = UInt64.max
  private var lastEnd: UInt64 = 0
  private var actionTrace: TraceRing
  private var effectTrace: TraceRing

  init(actionType: Any.Type, size: Int, alignment: Int, traceCapacity: Int) {
    table = ActionCaseTable(actionType: actionType, size: size, alignment: alignment)
    actionTrace = TraceRing(capacity: traceCapacity)
    effectTrace = TraceRing(capacity: traceCapacity / 4)
  }

  /// Budget: one case lookup (no allocation on a hit), two histogram records, one ring write.
  @inline(__always)
  mutating func actionReduced(
    valueAt action: ActionAddress, enqueuedAt: UInt64, startedAt: UInt64, endedAt: UInt64
  ) {
    let slot = self.slot(of: action)
    let statistics = cases[slot]
    statistics.queueWait.record(startedAt &- Swift.min(enqueuedAt, startedAt))
    statistics.reduce.record(endedAt &- Swift.min(startedAt, endedAt))
    actions += 1
    firstEnqueue = Swift.min(firstEnqueue, enqueuedAt)
    lastEnd = Swift.max(lastEnd, endedAt)
    actionTrace.append(
      .init(slot: Int32(slot), tag: 0, first: enqueuedAt, second: startedAt, third: endedAt))
  }

  /// Counts an action that was reduced without being timed. Budget: one case lookup, one
  /// increment.
  @inline(__always)
  mutating func actionCounted(valueAt action: ActionAddress) {
    let slot = self.slot(of: action)
    counted[slot] &+= 1
    actions += 1
  }

  mutating func effectStarted(byValueAt action: ActionAddress, at time: UInt64) {
    let slot = self.slot(of: action)
    if effects[slot] == nil { effects[slot] = EffectStatistics() }
    effects[slot]!.started += 1
  }

  mutating func effectEnded(
    byValueAt action: ActionAddress, startedAt: UInt64, endedAt: UInt64,
    outcome: EffectOutcome
  ) {
    let slot = self.slot(of: action)
    if effects[slot] == nil { effects[slot] = EffectStatistics() }
    let tag: UInt8
    switch outcome {
    case .finished: effects[slot]!.finished += 1; tag = 0
    case .cancelled: effects[slot]!.cancelled += 1; tag = 1
    case .failed: effects[slot]!.failed += 1; tag = 2
    }
    effects[slot]!.lifetime.recordLatency(endedAt &- Swift.min(startedAt, endedAt))
    effectTrace.append(
      .init(slot: Int32(slot), tag: tag, first: startedAt, second: endedAt, third: 0))
  }

  /// The slot of `action`'s case, with its statistics allocated on first sight.
  @inline(__always)
  private mutating func slot(of action: ActionAddress) -> Int {
    let slot = table.slot(ofValueAt: action.pointer)
    if slot >= cases.count {
      // A miss: once per case.
      while cases.count < table.labels.count {
        cases.append(CaseStatistics(queueWait: arena.make(), reduce: arena.make()))
        effects.append(nil)
        counted.append(0)
      }
    }
    return slot
  }

  /// A copy of the figures, as report rows sorted by label.
  func recording(storeTrack: String) -> LatencyRecording {
    let labels = table.labels
    let actionCases = cases.indices.compactMap { slot -> ActionCaseReport? in
      let count = cases[slot].reduce.total + counted[slot]
      guard count > 0 else { return nil }
      return ActionCaseReport(
        label: labels[slot], count: count,
        queueWait: LatencySummary(cases[slot].queueWait.histogram()),
        reduce: LatencySummary(cases[slot].reduce.histogram()))
    }
    let effectRows = effects.indices.compactMap { slot -> EffectReport? in
      guard let statistics = effects[slot] else { return nil }
      return EffectReport(
        label: labels[slot], started: statistics.started,
        finished: statistics.finished, cancelled: statistics.cancelled,
        failed: statistics.failed,
        lifetime: LatencySummary(statistics.lifetime))
    }
    var trace: [TraceInterval] = []
    for sample in actionTrace.ordered {
      let label = labels[Int(sample.slot)]
      trace.append(
        TraceInterval(
          name: label, track: storeTrack, kind: .queueWait, startNanoseconds: sample.first,
          durationNanoseconds: sample.second &- Swift.min(sample.first, sample.second)))
      trace.append(
        TraceInterval(
          name: label, track: storeTrack, kind: .reduce, startNanoseconds: sample.second,
          durationNanoseconds: sample.third &- Swift.min(sample.second, sample.third)))
    }
    for sample in effectTrace.ordered {
      let outcome: EffectOutcome = [.finished, .cancelled, .failed][Int(sample.tag)]
      trace.append(
        TraceInterval(
          name: "\(labels[Int(sample.slot)]) (\(outcome.rawValue))", track: "effects",
          kind: .effect, startNanoseconds: sample.first,
          durationNanoseconds: sample.second &- Swift.min(sample.first, sample.second)))
    }
    return LatencyRecording(
      actions: actions,
      firstEnqueueNanoseconds: actions > 0 ? firstEnqueue : nil,
      lastEndNanoseconds: actions > 0 ? lastEnd : nil,
      actionCases: actionCases.sorted { $0.label < $1.label },
      effects: effectRows.sorted { $0.label < $1.label },
      trace: trace.sorted { $0.startNanoseconds < $1.startNanoseconds })
  }
}

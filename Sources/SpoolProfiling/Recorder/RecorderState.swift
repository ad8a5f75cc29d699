import Histogram
import SpoolCore
import Synchronization

/// What a ``LatencyRecorder`` keeps under its lock: the case table, every recording thread's
/// ``ThreadCells`` (which the threads write without the lock), and the effect figures.
///
/// Not generic, for the reason ``ActionCaseTable`` gives: actions arrive as the address of a
/// value of the action type the state was made for. Memory is bounded by the number of
/// distinct action cases, the number of threads that record and the trace capacity, never by
/// the number of actions.
struct RecorderState {
  struct EffectStatistics {
    var started = 0
    var finished = 0
    var cancelled = 0
    var failed = 0
    var lifetime = Histogram<UInt64>.latency()
  }

  private var table: ActionCaseTable
  /// Reads an action's top-level case without the lock; immutable.
  var tagReader: ActionTagReader { table.tagReader }
  /// Every recording thread's counts, histograms and trace.
  private var threads: ThreadCellsRegistry
  /// The most recent timed actions kept per thread, and in a recording.
  private let traceCapacity: Int
  /// Indexed by slot; `nil` for cases that never started an effect.
  private var effects: [EffectStatistics?] = []
  private var effectTrace: TraceRing
  /// The cells of the stores that count their untimed actions themselves (sampling).
  private var storeCounts = StoreCaseCountsRegistry()

  init(actionType: Any.Type, size: Int, alignment: Int, traceCapacity: Int) {
    table = ActionCaseTable(actionType: actionType, size: size, alignment: alignment)
    self.traceCapacity = Swift.max(0, traceCapacity)
    threads = ThreadCellsRegistry(
      stride: RecorderCells.stride,
      ownCells: RecorderCells.ownCells(traceCapacity: Swift.max(0, traceCapacity)),
      topSlotCount: table.tagReader.caseCount, minimumSlots: 2)
    effectTrace = TraceRing(capacity: traceCapacity / 4)
  }

  /// The slow path of a recording thread: the slot of the action at `action` (learned on first
  /// sight), the calling thread's cells grown to hold it, and whether it is the top-level leaf
  /// case `tag`.
  mutating func locate(
    valueAt action: ActionAddress, topLevelTag tag: Int
  ) -> (slot: Int, cells: ThreadCells, isTopLevelLeaf: Bool) {
    let slot = table.slot(ofValueAt: action.pointer)
    let cells = threads.currentThreadCellsLocked(holding: slot)
    return (slot, cells, table.leafSlot(topLevelTag: tag) == slot)
  }

  mutating func effectStarted(byValueAt action: ActionAddress, at time: UInt64) {
    let slot = effectSlot(of: action)
    if effects[slot] == nil { effects[slot] = EffectStatistics() }
    effects[slot]!.started += 1
  }

  mutating func effectEnded(
    byValueAt action: ActionAddress, startedAt: UInt64, endedAt: UInt64,
    outcome: EffectOutcome
  ) {
    let slot = effectSlot(of: action)
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

  /// The slot of `action`'s case, with room for it in `effects`.
  private mutating func effectSlot(of action: ActionAddress) -> Int {
    let slot = table.slot(ofValueAt: action.pointer)
    if slot >= effects.count {
      effects += repeatElement(nil, count: slot + 1 - effects.count)
    }
    return slot
  }

  /// Frees every thread's cells: the recorder is going away.
  mutating func deallocate() {
    threads.deallocate()
    storeCounts.deallocate()
  }

  /// Cells for one more store that counts its untimed actions itself.
  mutating func makeStoreCounts(owner: any StoreCaseCountingInstrumentation) -> StoreCaseCounts {
    storeCounts.make(table: &table, owner: owner)
  }

  /// Adds a departing store's counts to the retired stores' and forgets its cells.
  mutating func retireStoreCounts(id: Int) {
    storeCounts.retire(id: id)
  }

  /// Every thread's figures added up, as report rows sorted by label.
  ///
  /// Holds every action whose recording happened-before this call. Taken while stores still
  /// record, it may also hold some actions recorded during the call, in part: a case's count,
  /// queue wait and reduce time may then disagree by those actions.
  func recording(storeTrack: String) -> LatencyRecording {
    let labels = table.labels
    let arena = LatencyCountsArena()
    let queueWaits = labels.map { _ in arena.make() }
    let reduces = labels.map { _ in arena.make() }
    var untimed = [UInt64](repeating: 0, count: labels.count)
    var firstEnqueue = UInt64.max
    var lastEnd: UInt64 = 0
    var samples: [TraceRing.Sample] = []
    for thread in threads.threads {
      // A thread's counts live only in slots the table had learned when it took the lock, and
      // the labels were read under the same lock: every counted slot has a label.
      for slot in 0..<Swift.min(thread.slotCapacity, labels.count) {
        let cells = thread.cells(ofSlot: slot)
        queueWaits[slot].add(RecorderCells.queueWait(cells))
        reduces[slot].add(RecorderCells.reduce(cells))
        untimed[slot] &+= RecorderCells.untimed(cells).pointee.load(ordering: .relaxed)
      }
      if let span = RecorderCells.span(of: thread) {
        firstEnqueue = Swift.min(firstEnqueue, span.first)
        lastEnd = Swift.max(lastEnd, span.last)
      }
      samples += RecorderCells.traceSamples(of: thread, traceCapacity: traceCapacity)
        .filter { Int($0.slot) < labels.count }
    }
    storeCounts.addUntimed(to: &untimed)
    var actions = 0
    var actionCases: [ActionCaseReport] = []
    for slot in labels.indices {
      let reduce = reduces[slot].histogram()
      let count = Int(reduce.totalCount) + Int(untimed[slot])
      actions += count
      guard count > 0 else { continue }
      actionCases.append(
        ActionCaseReport(
          label: labels[slot], count: count,
          queueWait: LatencySummary(queueWaits[slot].histogram()),
          reduce: LatencySummary(reduce)))
    }
    withExtendedLifetime(arena) {}
    if samples.count > traceCapacity {
      // The most recent across threads: those that ended last.
      samples.sort { $0.third < $1.third }
      samples.removeFirst(samples.count - traceCapacity)
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
    for sample in samples {
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

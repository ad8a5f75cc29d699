import Synchronization

/// How ``LatencyRecorder`` lays out a thread's ``ThreadCells``, and its hot path over them.
///
/// Per slot: the queue wait's ``LatencyCounts``, the reduce time's, then the count of actions
/// reduced without being timed (sampling). The thread's own cells: the earliest enqueue
/// (inverted, `~time`, so that zero means none), the latest reduce end, the trace's count of
/// samples appended and its next index, then `traceCapacity + 1` samples of four cells (slot,
/// enqueue, start, end): one more than the trace keeps, so that an append in progress never
/// overwrites a sample a reader keeps.
///
/// Only the thread that owns the cells calls the recording functions;
/// ``traceSamples(of:traceCapacity:)`` and the folding in ``RecorderState`` read from any
/// thread.
enum RecorderCells {
  static var stride: Int { 2 * LatencyCounts.cells + 1 }
  private static let firstEnqueueCell = 0
  private static let lastEndCell = 1
  private static let appendedCell = 2
  private static let nextCell = 3
  private static let samplesStart = 4
  private static let cellsPerSample = 4

  static func ownCells(traceCapacity: Int) -> Int {
    samplesStart + cellsPerSample * ringSlots(traceCapacity: traceCapacity)
  }

  /// Samples the ring holds: one more than it keeps, when it keeps any.
  @inline(__always)
  static func ringSlots(traceCapacity: Int) -> Int { traceCapacity > 0 ? traceCapacity + 1 : 0 }

  static func queueWait(_ slotCells: UnsafeMutablePointer<Atomic<UInt64>>) -> LatencyCounts {
    LatencyCounts(base: slotCells)
  }

  static func reduce(_ slotCells: UnsafeMutablePointer<Atomic<UInt64>>) -> LatencyCounts {
    LatencyCounts(base: slotCells + LatencyCounts.cells)
  }

  static func untimed(_ slotCells: UnsafeMutablePointer<Atomic<UInt64>>)
    -> UnsafeMutablePointer<Atomic<UInt64>>
  {
    slotCells + 2 * LatencyCounts.cells
  }

  /// Records one timed action of `slot`. Owner thread only.
  ///
  /// Budget: two ``LatencyCounts/record(_:)``, two compares, five relaxed stores and one
  /// releasing store for the trace; no lock, no allocation.
  @inline(__always)
  static func record(
    into cells: ThreadCells, slot: Int, enqueuedAt: UInt64, startedAt: UInt64, endedAt: UInt64,
    traceCapacity: Int
  ) {
    let slotCells = cells.cells(ofSlot: slot)
    queueWait(slotCells).record(startedAt &- Swift.min(enqueuedAt, startedAt))
    reduce(slotCells).record(endedAt &- Swift.min(startedAt, endedAt))
    let own = cells.ownCells
    if ~enqueuedAt > own[firstEnqueueCell].load(ordering: .relaxed) {
      own[firstEnqueueCell].store(~enqueuedAt, ordering: .relaxed)
    }
    if endedAt > own[lastEndCell].load(ordering: .relaxed) {
      own[lastEndCell].store(endedAt, ordering: .relaxed)
    }
    guard traceCapacity > 0 else { return }
    // Orders the previous sample's `appended` before this sample's cells, for a reader that
    // reads the cells, then `appended` (see `traceSamples`): a free compiler barrier on
    // x86-64.
    atomicMemoryFence(ordering: .releasing)
    let next = Int(truncatingIfNeeded: own[nextCell].load(ordering: .relaxed))
    let sample = own + samplesStart + next &* cellsPerSample
    sample[0].store(UInt64(truncatingIfNeeded: slot), ordering: .relaxed)
    sample[1].store(enqueuedAt, ordering: .relaxed)
    sample[2].store(startedAt, ordering: .relaxed)
    sample[3].store(endedAt, ordering: .relaxed)
    own[nextCell].store(
      next == traceCapacity ? 0 : UInt64(truncatingIfNeeded: next &+ 1), ordering: .relaxed)
    ThreadCells.addReleasing(1, to: own + appendedCell)
  }

  /// Counts one action of `slot` reduced without being timed. Owner thread only.
  ///
  /// Budget: one relaxed load and store; no lock, no allocation.
  @inline(__always)
  static func count(into cells: ThreadCells, slot: Int) {
    ThreadCells.add(1, to: untimed(cells.cells(ofSlot: slot)))
  }

  /// The earliest enqueue and latest end the thread recorded, if it timed any action.
  static func span(of cells: ThreadCells) -> (first: UInt64, last: UInt64)? {
    let own = cells.ownCells
    let inverted = own[firstEnqueueCell].load(ordering: .relaxed)
    guard inverted != 0 else { return nil }
    return (~inverted, own[lastEndCell].load(ordering: .relaxed))
  }

  /// The thread's most recent samples, oldest first, any thread.
  ///
  /// Holds every sample appended before this call happened-before it that the ring still
  /// keeps; read while the owner appends, it drops any sample the owner may be overwriting, so
  /// none is torn.
  static func traceSamples(of cells: ThreadCells, traceCapacity: Int) -> [TraceRing.Sample] {
    guard traceCapacity > 0 else { return [] }
    let own = cells.ownCells
    let capacity = UInt64(traceCapacity)
    let slots = UInt64(ringSlots(traceCapacity: traceCapacity))
    let appended = own[appendedCell].load(ordering: .acquiring)
    let oldest = appended - Swift.min(appended, capacity)
    var samples: [(sequence: UInt64, sample: TraceRing.Sample)] = []
    samples.reserveCapacity(Int(appended - oldest))
    for sequence in oldest..<appended {
      let cell = own + samplesStart + Int(sequence % slots) * cellsPerSample
      samples.append(
        (
          sequence,
          TraceRing.Sample(
            slot: Int32(truncatingIfNeeded: cell[0].load(ordering: .relaxed)), tag: 0,
            first: cell[1].load(ordering: .relaxed), second: cell[2].load(ordering: .relaxed),
            third: cell[3].load(ordering: .relaxed))
        ))
    }
    // The append of sequence `s` overwrites sequence `s - slots`. If a cell read above came
    // from an append that started after `appended` was read, that append's releasing fence
    // pairs with this acquiring one: `after` counts every append before it, and the one that
    // may be in progress (sequence `after`) overwrites only `after - slots`, dropped. Without
    // appends meanwhile, `after - slots` is older than every sample read: none is dropped.
    atomicMemoryFence(ordering: .acquiring)
    let after = own[appendedCell].load(ordering: .relaxed)
    return samples.filter { $0.sequence + slots > after }.map(\.sample)
  }
}

import SpoolProfiling
import Synchronization

/// How ``MetricsInstrumentation``'s histogram recording lays out a thread's `ThreadCells`:
/// per action case slot, for queue wait and for reduce time, a count per bucket (the last one
/// `+Inf`) and a sum in nanoseconds, then the count of actions reduced without being timed
/// (sampling), all cumulative since the instrumentation was made.
///
/// The owner thread records without a lock (`ThreadCells`' single-writer rule); the publisher
/// reads with the instrumentation's lock held, and since values only grow it publishes the
/// difference from what it published before and never resets a cell.
enum ThreadHistograms {
  /// Cells per slot: for each of the two kinds, `bucketsPerKind` counts and a sum; then the
  /// count of actions reduced without being timed.
  @inline(__always)
  static func stride(bucketsPerKind: Int) -> Int { 2 * (bucketsPerKind + 1) + 1 }

  /// Counts one action of case `slot`. Owner thread only; `cells.holds(slot:)` must be true.
  ///
  /// Budget: four relaxed load/store pairs; no lock, no allocation.
  @inline(__always)
  static func record(
    into cells: ThreadCells, slot: Int, bucketsPerKind: Int,
    queueWait: (bucket: Int, nanoseconds: UInt64), reduce: (bucket: Int, nanoseconds: UInt64)
  ) {
    let base = cells.cells(ofSlot: slot)
    ThreadCells.add(1, to: base + queueWait.bucket)
    // The sums release: a reader that acquires a sum also sees the bucket count stored before
    // it, so a published sum never covers an action whose count is not published.
    ThreadCells.addReleasing(queueWait.nanoseconds, to: base + bucketsPerKind)
    let reduceBase = base + bucketsPerKind + 1
    ThreadCells.add(1, to: reduceBase + reduce.bucket)
    ThreadCells.addReleasing(reduce.nanoseconds, to: reduceBase + bucketsPerKind)
  }

  /// Counts one action of case `slot` that was reduced without being timed. Owner thread
  /// only; `cells.holds(slot:)` must be true.
  ///
  /// Budget: one relaxed load/store pair; no lock, no allocation.
  @inline(__always)
  static func count(into cells: ThreadCells, slot: Int, bucketsPerKind: Int) {
    let stride = Self.stride(bucketsPerKind: bucketsPerKind)
    ThreadCells.add(1, to: cells.cells(ofSlot: slot) + stride - 1)
  }

  /// Adds one thread's cumulative counts of every slot it holds to `totals` (laid out as the
  /// cells are, `stride` per slot). Called with the instrumentation's lock held, from any
  /// thread.
  static func addCountsLocked(
    of cells: ThreadCells, to totals: inout [UInt64], bucketsPerKind: Int
  ) {
    let stride = Self.stride(bucketsPerKind: bucketsPerKind)
    let capacity = cells.slotCapacity
    if totals.count < capacity * stride {
      totals += repeatElement(0, count: capacity * stride - totals.count)
    }
    for slot in 0..<capacity {
      let slotCells = cells.cells(ofSlot: slot)
      let base = slot * stride
      for kind in 0..<2 {
        let first = kind * (bucketsPerKind + 1)
        // The sum first, acquiring: the counts read after it include every action it covers.
        let sum = slotCells[first + bucketsPerKind].load(ordering: .acquiring)
        totals[base + first + bucketsPerKind] &+= sum
        for bucket in 0..<bucketsPerKind {
          totals[base + first + bucket] &+= slotCells[first + bucket].load(ordering: .relaxed)
        }
      }
      totals[base + stride - 1] &+= slotCells[stride - 1].load(ordering: .relaxed)
    }
  }
}

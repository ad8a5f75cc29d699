import Synchronization

/// One thread's histogram counts for one ``MetricsInstrumentation``: per action case slot, for
/// queue wait and for reduce time, a count per bucket (the last one `+Inf`) and a sum in
/// nanoseconds, all cumulative since the instrumentation was made.
///
/// Single writer: only the thread this belongs to records into it, and a thread records one
/// action at a time (``StoreInstrumentation/actionReduced(_:enqueuedAt:startedAt:endedAt:)``
/// is synchronous and never re-entered on its thread). So a count is a relaxed load and a
/// relaxed store, not a read-modify-write, and no increment can be lost: nobody else writes the
/// cell. The publisher reads the cells concurrently; each cell is an `Atomic`, so it sees a
/// whole value, never a torn one, and values only grow, so it publishes the difference from
/// what it published before and never resets a cell.
///
/// What protects the rest: `topSlots` is read and written by the owning thread only; `cells`
/// and `slotCapacity` change only in ``growLocked(toHold:)``, which the owning thread calls
/// with the instrumentation's lock held, and the publisher reads them only with that lock
/// held, so it never reads a buffer being freed.
///
/// Lives in memory that `PendingHistograms` allocates and frees (when the instrumentation
/// goes), so that the hot path touches no reference count.
struct ThreadHistograms: @unchecked Sendable {
  // @unchecked: a handle to the storage above, whose every access follows the discipline
  // stated there (owner-only fields, atomic cells, growth and reading under the lock).
  struct Storage {
    /// `slotCapacity × stride` cells.
    var cells: UnsafeMutablePointer<Atomic<UInt64>>
    var slotCapacity: Int
    /// Per top-level tag, the case's slot + 1 when it is a leaf this thread has seen, else 0.
    let topSlots: UnsafeMutablePointer<Int>
    let topSlotCount: Int
    /// The thread that records into it: `pthread_self()` of the owner.
    let thread: UInt
  }

  let storage: UnsafeMutablePointer<Storage>

  /// Cells per slot: for each of the two kinds, `bucketsPerKind` counts and a sum; then the
  /// count of actions reduced without being timed (sampling).
  @inline(__always)
  static func stride(bucketsPerKind: Int) -> Int { 2 * (bucketsPerKind + 1) + 1 }

  /// Allocates the storage of `thread`'s counts, room for `slotCapacity` slots.
  static func allocate(
    thread: UInt, topSlotCount: Int, slotCapacity: Int, bucketsPerKind: Int
  ) -> ThreadHistograms {
    let count = slotCapacity * stride(bucketsPerKind: bucketsPerKind)
    let cells = UnsafeMutablePointer<Atomic<UInt64>>.allocate(capacity: count)
    for index in 0..<count { (cells + index).initialize(to: Atomic(0)) }
    let topSlots = UnsafeMutablePointer<Int>.allocate(capacity: topSlotCount)
    topSlots.initialize(repeating: 0, count: topSlotCount)
    let storage = UnsafeMutablePointer<Storage>.allocate(capacity: 1)
    storage.initialize(
      to: Storage(
        cells: cells, slotCapacity: slotCapacity, topSlots: topSlots,
        topSlotCount: topSlotCount, thread: thread))
    return ThreadHistograms(storage: storage)
  }

  /// Frees the storage. Only when no thread can record into it any more: the instrumentation
  /// is going away.
  func deallocate(bucketsPerKind: Int) {
    let count = storage.pointee.slotCapacity * Self.stride(bucketsPerKind: bucketsPerKind)
    storage.pointee.cells.deinitialize(count: count)
    storage.pointee.cells.deallocate()
    storage.pointee.topSlots.deallocate()
    storage.deinitialize(count: 1)
    storage.deallocate()
  }

  /// The slot of top-level case `tag`, if this thread has learned it is a leaf; -1 otherwise.
  /// Owner thread only.
  @inline(__always)
  func knownSlot(topLevelTag tag: Int) -> Int {
    guard tag >= 0, tag < storage.pointee.topSlotCount else { return -1 }
    return storage.pointee.topSlots[tag] - 1
  }

  /// Remembers that top-level case `tag` is the leaf `slot`. Owner thread only.
  func learn(topLevelTag tag: Int, slot: Int) {
    guard tag >= 0, tag < storage.pointee.topSlotCount else { return }
    storage.pointee.topSlots[tag] = slot + 1
  }

  /// Whether `slot` has cells. Owner thread only (or with the lock held).
  @inline(__always)
  func holds(slot: Int) -> Bool { slot < storage.pointee.slotCapacity }

  /// Counts one action of case `slot`. Owner thread only; `holds(slot:)` must be true.
  ///
  /// Budget: two bucket searches, four relaxed load/store pairs; no lock, no allocation.
  @inline(__always)
  func record(
    slot: Int, bucketsPerKind: Int, queueWait: (bucket: Int, nanoseconds: UInt64),
    reduce: (bucket: Int, nanoseconds: UInt64)
  ) {
    let base = storage.pointee.cells + slot * Self.stride(bucketsPerKind: bucketsPerKind)
    Self.add(1, to: base + queueWait.bucket)
    Self.addSum(queueWait.nanoseconds, to: base + bucketsPerKind)
    let reduceBase = base + bucketsPerKind + 1
    Self.add(1, to: reduceBase + reduce.bucket)
    Self.addSum(reduce.nanoseconds, to: reduceBase + bucketsPerKind)
  }

  /// Counts one action of case `slot` that was reduced without being timed. Owner thread
  /// only; `holds(slot:)` must be true.
  ///
  /// Budget: one relaxed load/store pair; no lock, no allocation.
  @inline(__always)
  func count(slot: Int, bucketsPerKind: Int) {
    let stride = Self.stride(bucketsPerKind: bucketsPerKind)
    Self.add(1, to: storage.pointee.cells + slot * stride + stride - 1)
  }

  /// A single writer's increment: no other thread writes `cell`, so load-then-store loses
  /// nothing.
  @inline(__always)
  private static func add(_ amount: UInt64, to cell: UnsafeMutablePointer<Atomic<UInt64>>) {
    cell.pointee.store(cell.pointee.load(ordering: .relaxed) &+ amount, ordering: .relaxed)
  }

  /// As `add`, releasing: a reader that acquires the sum also sees the bucket count stored
  /// before it, so a published sum never covers an action whose count is not published.
  @inline(__always)
  private static func addSum(_ amount: UInt64, to cell: UnsafeMutablePointer<Atomic<UInt64>>) {
    cell.pointee.store(cell.pointee.load(ordering: .relaxed) &+ amount, ordering: .releasing)
  }

  /// Makes room for `slot`, copying the counts so far. Called by the owner thread with the
  /// instrumentation's lock held (the publisher reads `cells` only with it held).
  func growLocked(toHold slot: Int, bucketsPerKind: Int) {
    let stride = Self.stride(bucketsPerKind: bucketsPerKind)
    let oldCapacity = storage.pointee.slotCapacity
    guard slot >= oldCapacity else { return }
    let newCapacity = Swift.max(slot + 1, oldCapacity * 2)
    let old = storage.pointee.cells
    let cells = UnsafeMutablePointer<Atomic<UInt64>>.allocate(capacity: newCapacity * stride)
    // The owner is the only writer, and it is here: the old values are final.
    for index in 0..<oldCapacity * stride {
      (cells + index).initialize(to: Atomic(old[index].load(ordering: .relaxed)))
    }
    for index in oldCapacity * stride..<newCapacity * stride {
      (cells + index).initialize(to: Atomic(0))
    }
    storage.pointee.cells = cells
    storage.pointee.slotCapacity = newCapacity
    old.deinitialize(count: oldCapacity * stride)
    old.deallocate()
  }

  /// Adds this thread's cumulative counts of every slot it holds to `totals` (laid out as the
  /// cells are, `stride` per slot). Called with the instrumentation's lock held, from any
  /// thread.
  func addCountsLocked(to totals: inout [UInt64], bucketsPerKind: Int) {
    let stride = Self.stride(bucketsPerKind: bucketsPerKind)
    let capacity = storage.pointee.slotCapacity
    let cells = storage.pointee.cells
    if totals.count < capacity * stride {
      totals += repeatElement(0, count: capacity * stride - totals.count)
    }
    for slot in 0..<capacity {
      let base = slot * stride
      for kind in 0..<2 {
        let first = base + kind * (bucketsPerKind + 1)
        // The sum first, acquiring: the counts read after it include every action it covers.
        let sum = cells[first + bucketsPerKind].load(ordering: .acquiring)
        totals[first + bucketsPerKind] &+= sum
        for bucket in 0..<bucketsPerKind {
          totals[first + bucket] &+= cells[first + bucket].load(ordering: .relaxed)
        }
      }
      totals[base + stride - 1] &+= cells[base + stride - 1].load(ordering: .relaxed)
    }
  }
}

import Synchronization

/// One thread's counters for one instrumentation: per action case slot, `stride` cells, plus a
/// fixed number of cells of the thread's own, all cumulative since the instrumentation was
/// made. `LatencyRecorder` keeps its histograms and trace here, and SpoolMetrics' histogram
/// recording its buckets.
///
/// Single writer: only the thread this belongs to records into it, and a thread records one
/// action at a time (``StoreInstrumentation`` calls are synchronous and never re-entered on
/// their thread). So an increment is a relaxed load and a relaxed store, not a
/// read-modify-write, and none can be lost: nobody else writes the cell. Readers (a
/// publication, a report) read the cells concurrently; each cell is an `Atomic`, so a reader
/// sees a whole value, never a torn one, and every value the owner stored before the read
/// happened-before it.
///
/// What protects the rest: `topSlots` is read and written by the owning thread only;
/// `cells` and `slotCapacity` change only in ``growLocked(toHold:)``, which the owning thread
/// calls with its instrumentation's lock held, and readers read them only with that lock held,
/// so none reads a buffer being freed. The thread's own cells never move.
///
/// Lives in memory that ``ThreadCellsRegistry`` allocates and frees (when the instrumentation
/// goes), so that the hot path touches no reference count.
package struct ThreadCells: @unchecked Sendable {
  // @unchecked: a handle to the storage above, whose every access follows the discipline
  // stated there (owner-only fields, atomic cells, growth and reading under the owner's lock,
  // freeing only when no thread records any more).
  struct Storage {
    /// `slotCapacity × stride` cells.
    var cells: UnsafeMutablePointer<Atomic<UInt64>>
    var slotCapacity: Int
    let stride: Int
    /// The thread's own cells, `ownCount` of them; allocated once.
    let own: UnsafeMutablePointer<Atomic<UInt64>>
    let ownCount: Int
    /// Per top-level tag, the case's slot + 1 when it is a leaf this thread has seen, else 0.
    let topSlots: UnsafeMutablePointer<Int>
    let topSlotCount: Int
    /// The thread that records into it: `pthread_self()` of the owner.
    let thread: UInt
  }

  let storage: UnsafeMutablePointer<Storage>

  /// Allocates zeroed storage for `thread`: room for `slotCapacity` slots of `stride` cells,
  /// and `ownCells` cells of the thread's own.
  static func allocate(
    thread: UInt, topSlotCount: Int, slotCapacity: Int, stride: Int, ownCells: Int
  ) -> ThreadCells {
    let storage = UnsafeMutablePointer<Storage>.allocate(capacity: 1)
    let topSlots = UnsafeMutablePointer<Int>.allocate(capacity: Swift.max(topSlotCount, 1))
    topSlots.initialize(repeating: 0, count: Swift.max(topSlotCount, 1))
    storage.initialize(
      to: Storage(
        cells: zeroedCells(slotCapacity * stride), slotCapacity: slotCapacity, stride: stride,
        own: zeroedCells(ownCells), ownCount: ownCells, topSlots: topSlots,
        topSlotCount: topSlotCount, thread: thread))
    return ThreadCells(storage: storage)
  }

  private static func zeroedCells(_ count: Int) -> UnsafeMutablePointer<Atomic<UInt64>> {
    let cells = UnsafeMutablePointer<Atomic<UInt64>>.allocate(capacity: Swift.max(count, 1))
    for index in 0..<count { (cells + index).initialize(to: Atomic(0)) }
    return cells
  }

  /// Frees the storage. Only when no thread can record into it any more: the instrumentation
  /// is going away.
  package func deallocate() {
    let pointee = storage.pointee
    pointee.cells.deinitialize(count: pointee.slotCapacity * pointee.stride)
    pointee.cells.deallocate()
    pointee.own.deinitialize(count: pointee.ownCount)
    pointee.own.deallocate()
    pointee.topSlots.deallocate()
    storage.deinitialize(count: 1)
    storage.deallocate()
  }

  /// The thread that records into these cells.
  package var thread: UInt { storage.pointee.thread }

  /// Cells per slot.
  package var stride: Int { storage.pointee.stride }

  /// How many slots have cells. Owner thread only, or with the owner's lock held.
  package var slotCapacity: Int { storage.pointee.slotCapacity }

  /// The slot of top-level case `tag`, if this thread has learned it is a leaf; -1 otherwise.
  /// Owner thread only.
  @inline(__always)
  package func knownSlot(topLevelTag tag: Int) -> Int {
    guard tag >= 0, tag < storage.pointee.topSlotCount else { return -1 }
    return storage.pointee.topSlots[tag] &- 1
  }

  /// Remembers that top-level case `tag` is the leaf `slot`. Owner thread only.
  package func learn(topLevelTag tag: Int, slot: Int) {
    guard tag >= 0, tag < storage.pointee.topSlotCount else { return }
    storage.pointee.topSlots[tag] = slot + 1
  }

  /// Whether `slot` has cells. Owner thread only, or with the owner's lock held.
  @inline(__always)
  package func holds(slot: Int) -> Bool { slot < storage.pointee.slotCapacity }

  /// The first of `slot`'s `stride` cells. Owner thread only (`holds(slot:)` must be true), or
  /// with the owner's lock held.
  @inline(__always)
  package func cells(ofSlot slot: Int) -> UnsafeMutablePointer<Atomic<UInt64>> {
    storage.pointee.cells + slot &* storage.pointee.stride
  }

  /// The first of the thread's own cells; they never move.
  @inline(__always)
  package var ownCells: UnsafeMutablePointer<Atomic<UInt64>> { storage.pointee.own }

  /// A single writer's increment: no other thread writes `cell`, so load-then-store loses
  /// nothing.
  @inline(__always)
  package static func add(_ amount: UInt64, to cell: UnsafeMutablePointer<Atomic<UInt64>>) {
    cell.pointee.store(cell.pointee.load(ordering: .relaxed) &+ amount, ordering: .relaxed)
  }

  /// As ``add(_:to:)``, releasing: a reader that acquires the cell also sees every store the
  /// owner made before.
  @inline(__always)
  package static func addReleasing(
    _ amount: UInt64, to cell: UnsafeMutablePointer<Atomic<UInt64>>
  ) {
    cell.pointee.store(cell.pointee.load(ordering: .relaxed) &+ amount, ordering: .releasing)
  }

  /// Makes room for `slot`, copying the counts so far. Called by the owner thread with its
  /// instrumentation's lock held (readers read `cells` only with it held).
  package func growLocked(toHold slot: Int) {
    let stride = storage.pointee.stride
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
}

/// Every thread's ``ThreadCells`` of one instrumentation. Not thread-safe: it lives in the
/// instrumentation's `Mutex`; threads record into their cells without it, and only finding or
/// growing their cells takes it.
package struct ThreadCellsRegistry {
  /// Cells per slot.
  package let stride: Int
  /// Cells of each thread's own.
  package let ownCells: Int
  /// How many top-level cases the action type has: the size of each thread's slot cache.
  private let topSlotCount: Int
  /// The fewest slots a thread's cells are made with.
  private let minimumSlots: Int
  /// Every thread's cells, in order of first use; freed by ``deallocate()``.
  package private(set) var threads: [ThreadCells] = []

  package init(stride: Int, ownCells: Int, topSlotCount: Int, minimumSlots: Int) {
    self.minimumSlots = minimumSlots
    self.stride = stride
    self.ownCells = ownCells
    self.topSlotCount = topSlotCount
  }

  /// The calling thread's cells, made on its first action, with room for `slot`. A thread
  /// that ended and whose identity a new thread took gets the old cells: the old one no
  /// longer writes.
  package mutating func currentThreadCellsLocked(holding slot: Int) -> ThreadCells {
    let thread = ThreadCellsCache.currentThread
    if let existing = threads.first(where: { $0.thread == thread }) {
      existing.growLocked(toHold: slot)
      return existing
    }
    let made = ThreadCells.allocate(
      thread: thread, topSlotCount: topSlotCount, slotCapacity: Swift.max(slot + 1, minimumSlots),
      stride: stride, ownCells: ownCells)
    threads.append(made)
    return made
  }

  /// Frees every thread's cells; no thread may record into them afterwards.
  package mutating func deallocate() {
    for thread in threads { thread.deallocate() }
    threads = []
  }
}

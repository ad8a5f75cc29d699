import Synchronization

/// An instrumentation that samples and lets each store count the actions it does not time, by
/// top-level case, in cells of the store's own (``StoreCaseCounts``), instead of a call to
/// ``StoreInstrumentation/actionCounted(_:)`` per action.
///
/// A store asks once, when it is created (a dynamic cast of its instrumentation). The call per
/// untimed action cost more than a cheap reducer's whole action (an existential call, a copy
/// of the action, the calling thread's cells looked up: `spool bench instrumentation`); a
/// store's own cells cost a case read and an increment. Spool's sampling instrumentations
/// conform; others are called per action as the protocol says.
package protocol StoreCaseCountingInstrumentation: AnyObject, Sendable {
  /// Cells for one more store, or `nil` to be called per action.
  func makeStoreCaseCounts() -> StoreCaseCounts?

  /// Takes back the cells of the counts `id`, whose store is going away: adds up their counts
  /// for good. After it returns, the instrumentation never reads those cells again (the
  /// caller frees them).
  func retireStoreCaseCounts(id: Int)

  /// A store counted an action while the counts' ``StoreCaseCounts/Pickup`` was clear: the
  /// instrumentation, which reads the counts on a schedule of its own, should schedule a read.
  /// Called on the store's thread, with its consumer lock held; never for counts made without
  /// a pickup.
  func storeCaseCountsNeedPickup()
}

extension StoreCaseCountingInstrumentation {
  /// Nothing: an instrumentation that reads the counts only when asked gives no pickup.
  package func storeCaseCountsNeedPickup() {}
}

/// One store's counts of the actions it reduced without timing them, one cell per top-level
/// case of its action type, written by the store and read by the instrumentation that made
/// them, which adds them to the counts its recording reports.
///
/// Cases whose payload is an enum the instrumentation labels case by case (`child(.toggle)`)
/// are not counted here: ``count(_:)`` returns `false` for them, and the store calls
/// ``StoreInstrumentation/actionCounted(_:)`` as before.
///
/// Sendable without a check (`@unchecked`): `cells` is written only by the holder of the
/// store's consumer lock, one action at a time, so an increment is a relaxed load and store
/// that loses nothing (the lock orders one holder's writes before the next's), and read by
/// the instrumentation as atomics, never torn; the instrumentation reads them only under its
/// own lock, which ``deinit`` takes (through `retire`) before it frees them. `isCounted` is
/// owned by the instrumentation, never written after it handed out the first counts, and
/// outlives every counts object (each keeps the instrumentation alive). `pickup` is a `let`
/// of a Sendable class (an `Atomic`). `metadata` and `readTag` are the action type's metadata
/// and its `getEnumTag` value witness, which the runtime never moves or frees.
@usableFromInline
package final class StoreCaseCounts: @unchecked Sendable {
  /// A value witness `getEnumTag(value, metadata)`: the Swift and C conventions pass two
  /// pointers and return a 32-bit integer in the same registers on x86-64 and arm64.
  @usableFromInline
  package typealias ReadTag = @convention(c) (UnsafeRawPointer, UnsafeRawPointer) -> UInt32

  @usableFromInline let cells: UnsafeMutablePointer<Atomic<UInt64>>
  @usableFromInline let isCounted: UnsafePointer<Bool>
  @usableFromInline let caseCount: Int
  @usableFromInline let metadata: UnsafeRawPointer?
  @usableFromInline let readTag: ReadTag?
  @usableFromInline let pickup: Pickup?
  private let owner: any StoreCaseCountingInstrumentation
  private let id: Int

  /// Zeroed cells for `caseCount` top-level cases.
  ///
  /// - Parameters:
  ///   - caseCount: The number of top-level cases; tags are in `0..<caseCount`.
  ///   - isCounted: Per tag, whether the store counts the case here; owned by `owner`, never
  ///     written again, and alive as long as `owner`.
  ///   - readTag: The action type's metadata and `getEnumTag` witness; `nil` when every
  ///     action has tag 0 (one case, or a type that is not an enum).
  ///   - owner: The instrumentation, which ``deinit`` hands the cells back to.
  ///   - id: The owner's name for these cells.
  ///   - pickup: For an owner that reads the counts on a schedule of its own: the flag it keeps
  ///     set while a read is scheduled. A count that finds it clear calls
  ///     ``StoreCaseCountingInstrumentation/storeCaseCountsNeedPickup()``.
  package init(
    caseCount: Int, isCounted: UnsafePointer<Bool>,
    readTag: (metadata: UnsafeRawPointer, witness: ReadTag)?,
    owner: any StoreCaseCountingInstrumentation, id: Int, pickup: Pickup? = nil
  ) {
    let count = Swift.max(caseCount, 1)
    cells = .allocate(capacity: count)
    for index in 0..<count { (cells + index).initialize(to: Atomic(0)) }
    self.caseCount = count
    self.isCounted = isCounted
    self.metadata = readTag?.metadata
    self.readTag = readTag?.witness
    self.owner = owner
    self.id = id
    self.pickup = pickup
  }

  deinit {
    owner.retireStoreCaseCounts(id: id)
    cells.deinitialize(count: caseCount)
    cells.deallocate()
  }

  /// The cells, for the owner to read under its lock.
  package var countCells: UnsafeMutablePointer<Atomic<UInt64>> { cells }

  /// Counts `action` when its case is counted here, and returns whether it was. With the
  /// store's consumer lock held.
  ///
  /// Budget: one value-witness call (none for a type with one case), two loads, a relaxed load
  /// and store, and with a ``Pickup`` two loads more; no lock, no allocation.
  @inlinable @inline(__always)
  package func count<Action>(_ action: borrowing Action) -> Bool {
    var tag = 0
    if let readTag, let metadata {
      tag = withUnsafeBytes(of: action) { bytes in
        Int(readTag(bytes.baseAddress.unsafelyUnwrapped, metadata))
      }
    }
    guard tag < caseCount, isCounted[tag] else { return false }
    let cell = cells + tag
    cell.pointee.store(cell.pointee.load(ordering: .relaxed) &+ 1, ordering: .relaxed)
    if let pickup, _slowPath(!pickup.isScheduled.load(ordering: .relaxed)) { requestPickup() }
    return true
  }

  /// Tells the owner that counts wait for a read it has not scheduled; out of line.
  @usableFromInline @inline(never)
  func requestPickup() {
    owner.storeCaseCountsNeedPickup()
  }

  /// The flag of an owner that reads its stores' counts on a schedule of its own: set while a
  /// read is scheduled, so that a count costs one load more, and calls the owner only when
  /// nothing would read it.
  ///
  /// The owner clears it when it stops reading, then reads once more after a wait: a count
  /// that saw it still set missed the call, and that last read sees it, since the wait
  /// (`MetricsInstrumentation` waits a publishing interval) is far longer than a store's write
  /// takes to reach other cores. No fence per count makes this a memory-model guarantee.
  @usableFromInline
  package final class Pickup: Sendable {
    /// Whether the owner will read the counts without being told.
    @usableFromInline package let isScheduled = Atomic<Bool>(false)

    package init() {}
  }
}

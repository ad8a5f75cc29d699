import SpoolCore
import Synchronization

/// The ``StoreCaseCounts`` an instrumentation handed to its stores, and what the stores that
/// went away had counted: the untimed actions of every store, added up by slot.
///
/// Not thread-safe: the owner keeps it under the lock that guards its ``ActionCaseTable``.
/// The stores write their cells without that lock (one writer each, the holder of the
/// store's consumer lock); a reader here sees each cell whole, and every count that
/// happened before the read.
package struct StoreCaseCountsRegistry {
  /// Per top-level tag, the slot its actions count into (-1: a case whose payload is an enum,
  /// which stores do not count), and the flags ``StoreCaseCounts`` read; made with the first
  /// store's counts, freed by ``deallocate()``.
  private var counted: (slots: [Int], flags: UnsafeMutablePointer<Bool>)?
  /// The cells of every live store, by id.
  private var live: [Int: UnsafeMutablePointer<Atomic<UInt64>>] = [:]
  private var nextID = 0
  /// What the stores that went away counted, by slot.
  private var retired: [UInt64] = []

  package init() {}

  /// Cells for one more store of `owner`, whose case table is `table`.
  ///
  /// - Parameter pickup: For an owner that reads the counts on a schedule of its own (see
  ///   ``StoreCaseCounts/Pickup``); `nil` for one that reads them only when asked.
  package mutating func make(
    table: inout ActionCaseTable, owner: any StoreCaseCountingInstrumentation,
    pickup: StoreCaseCounts.Pickup? = nil
  ) -> StoreCaseCounts {
    let counted: (slots: [Int], flags: UnsafeMutablePointer<Bool>)
    if let existing = self.counted {
      counted = existing
    } else {
      let slots = table.learnTopLevelLeafSlots().map { $0 ?? -1 }
      let flags = UnsafeMutablePointer<Bool>.allocate(capacity: slots.count)
      flags.initialize(from: slots.map { $0 >= 0 }, count: slots.count)
      counted = (slots, flags)
      self.counted = counted
    }
    let id = nextID
    nextID += 1
    let counts = StoreCaseCounts(
      caseCount: counted.slots.count, isCounted: UnsafePointer(counted.flags),
      readTag: table.topLevelTagWitness, owner: owner, id: id, pickup: pickup)
    live[id] = counts.countCells
    return counts
  }

  /// Adds the counts of store `id`, which is going away, to what the retired stores counted,
  /// and forgets its cells.
  package mutating func retire(id: Int) {
    guard let cells = live.removeValue(forKey: id), let slots = counted?.slots else { return }
    for (tag, slot) in slots.enumerated() where slot >= 0 {
      if slot >= retired.count { retired += repeatElement(0, count: slot + 1 - retired.count) }
      retired[slot] &+= cells[tag].load(ordering: .relaxed)
    }
  }

  /// Adds every store's untimed counts, live and retired, to `untimed` (indexed by slot, grown
  /// to hold every slot a store counts into). The sum only grows from one call to the next.
  package func addUntimed(to untimed: inout [UInt64]) {
    func add(_ count: UInt64, at slot: Int) {
      if slot >= untimed.count { untimed += repeatElement(0, count: slot + 1 - untimed.count) }
      untimed[slot] &+= count
    }
    for (slot, count) in retired.enumerated() where count > 0 { add(count, at: slot) }
    guard let slots = counted?.slots else { return }
    for cells in live.values {
      for (tag, slot) in slots.enumerated() where slot >= 0 {
        add(cells[tag].load(ordering: .relaxed), at: slot)
      }
    }
  }

  /// Frees the flags: the owner is going away, and with it every store's counts (each keeps
  /// its owner alive).
  package mutating func deallocate() {
    counted?.flags.deallocate()
    counted = nil
  }
}

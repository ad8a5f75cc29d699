import CSpoolTime
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where a thread finds its ``ThreadCells`` for an instrumentation without a lock: a
/// thread-local table of eight entries, indexed by the instrumentation's ID.
///
/// An entry is valid only while its owner ID matches: IDs are never reused, and an
/// instrumentation's cells outlive every call into that instrumentation (they are freed when
/// the instrumentation is), so a matching entry points at live cells. A miss (first use on
/// this thread, or an entry taken by another instrumentation with the same index) costs the
/// caller one trip through its lock.
package enum ThreadCellsCache {
  private struct Entry {
    var owner: UInt64
    var cells: ThreadCells?
  }

  private static let entryCount = 8

  /// The key whose thread-local value is this thread's entries, freed when the thread exits.
  /// The hot path reads the entries through C's copy (`cspool_thread_cells_table`), not the
  /// key, and touches this lazy global (a `swift_once` call) only to make a thread's table.
  static let key: pthread_key_t = {
    var key = pthread_key_t()
    let result = pthread_key_create(&key) { entries in
      // Runs on the exiting thread: its fast copy must not point at the freed table.
      cspool_thread_cells_table_set(nil)
      entries?.deallocate()
    }
    precondition(result == 0, "Spool: pthread_key_create failed (\(result))")
    return key
  }()

  private static let nextOwner = Atomic<UInt64>(1)

  /// A new instrumentation's ID, never handed out before.
  package static func makeOwnerID() -> UInt64 {
    nextOwner.wrappingAdd(1, ordering: .relaxed).oldValue
  }

  /// The calling thread's identity, as ``ThreadCells`` records it.
  static var currentThread: UInt {
    #if canImport(Darwin)
      UInt(bitPattern: pthread_self())
    #else
      UInt(pthread_self())
    #endif
  }

  /// The calling thread's cells of `owner`, if this thread's table holds them.
  ///
  /// Budget: one thread-local load, one compare; no lock, no allocation, no reference count.
  @inline(__always)
  static func cells(of owner: UInt64) -> ThreadCells? {
    guard let raw = cspool_thread_cells_table_get() else { return nil }
    let entry = raw.assumingMemoryBound(to: Entry.self)[Int(owner % UInt64(entryCount))]
    return entry.owner == owner ? entry.cells : nil
  }

  /// Puts `cells` in the calling thread's table as `owner`'s, replacing what had its index.
  static func remember(_ cells: ThreadCells, of owner: UInt64) {
    let entries: UnsafeMutablePointer<Entry>
    if let raw = cspool_thread_cells_table_get() {
      entries = raw.assumingMemoryBound(to: Entry.self)
    } else {
      entries = UnsafeMutablePointer<Entry>.allocate(capacity: entryCount)
      entries.initialize(repeating: Entry(owner: 0, cells: nil), count: entryCount)
      let result = pthread_setspecific(key, entries)
      precondition(result == 0, "Spool: pthread_setspecific failed (\(result))")
      cspool_thread_cells_table_set(entries)
    }
    entries[Int(owner % UInt64(entryCount))] = Entry(owner: owner, cells: cells)
  }

  /// The calling thread's cells of `owner` and the slot in them of an action whose top-level
  /// tag is `tag`; `key` is ``key``.
  ///
  /// Budget (a top-level leaf case this thread has seen): one thread-local lookup and one
  /// array read; no lock, no allocation. Otherwise (a nested case, a thread's first action, a
  /// case's first sight on the thread) it calls `locate`, which takes the owner's lock to find
  /// the slot and the calling thread's cells grown to hold it (``ThreadCellsRegistry``), and
  /// says whether the case is the top-level leaf `tag`, which is then remembered.
  @inline(__always)
  package static func slot(
    owner: UInt64, topLevelTag tag: Int,
    locate: () -> (slot: Int, cells: ThreadCells, isTopLevelLeaf: Bool)
  ) -> (slot: Int, cells: ThreadCells) {
    if let known = knownSlot(owner: owner, topLevelTag: tag) { return known }
    return learnSlot(owner: owner, topLevelTag: tag, locate: locate)
  }

  /// The fast half of ``slot(owner:topLevelTag:locate:)``: the calling thread's cells of
  /// `owner` and the slot of the top-level leaf case `tag`, if this thread has learned them.
  ///
  /// Budget: one thread-local load, three compares and two array reads; no lock, no
  /// allocation, no reference count.
  @inline(__always)
  package static func knownSlot(
    owner: UInt64, topLevelTag tag: Int
  ) -> (slot: Int, cells: ThreadCells)? {
    guard let known = cells(of: owner) else { return nil }
    let slot = known.knownSlot(topLevelTag: tag)
    guard slot >= 0, known.holds(slot: slot) else { return nil }
    return (slot, known)
  }

  /// The slow half of ``slot(owner:topLevelTag:locate:)``: calls `locate`, remembers the cells
  /// it returns and, for a top-level leaf case, its slot. Kept out of line, so that the fast
  /// half's caller saves no registers for it.
  @inline(never)
  package static func learnSlot(
    owner: UInt64, topLevelTag tag: Int,
    locate: () -> (slot: Int, cells: ThreadCells, isTopLevelLeaf: Bool)
  ) -> (slot: Int, cells: ThreadCells) {
    let (slot, located, isLeaf) = locate()
    remember(located, of: owner)
    if isLeaf { located.learn(topLevelTag: tag, slot: slot) }
    return (slot, located)
  }
}

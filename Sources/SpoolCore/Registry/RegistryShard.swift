import Synchronization

/// One shard of a ``StoreRegistry``: the entries of the IDs that hash to it, behind one lock,
/// and a snapshot of its live stores for lookups that take no lock.
///
/// IDs are spread over several shards so that calls for different IDs on different threads
/// rarely take the same lock. An ID is in at most one of the two dictionaries.
///
/// A lookup of a live store reads `published` (within a counted read, ``RegistryReaders``)
/// and takes its hold on the slot alone; it writes nothing of the shard. Every change of the
/// live stores takes the snapshot down first, with the lock held, and retires it; lookups that
/// find none take the lock, and once they were about half as many as the shard's live stores,
/// one of them publishes a snapshot of the live stores again. Publishing copies the live
/// stores once (unretained, for lookups), and the snapshot shares the dictionary's storage
/// (which keeps them alive), so that the next change copies it too: both copies are paid for
/// by the lookups counted before them, and a run of creations with few lookups copies nothing.
@usableFromInline
final class RegistryShard<
  ID: Hashable & Sendable, StoreState: Sendable, StoreAction: Sendable
>: Sendable {
  @usableFromInline typealias Snapshot = RegistrySnapshot<ID, StoreState, StoreAction>

  /// The live stores for lookups without the lock, or `nil`: a retained reference, released
  /// by ``RegistryReaders/reclaim()`` once taken down (or by `deinit`). Written with the lock
  /// held; read by anyone.
  @usableFromInline let published = Atomic<Unmanaged<Snapshot>?>(nil)
  /// Room between the snapshot, which lookups read, and the lock, which changes write.
  private let spacing: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) =
    (0, 0, 0, 0, 0, 0, 0, 0)
  @usableFromInline let contents = Mutex(Contents())
  /// Room after the lock and its contents, so that two shards' locks, which calls on
  /// different threads take, do not share a cache line (a shard is allocated on its own).
  private let trailingSpacing:
    (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)

  @usableFromInline
  struct Contents {
    /// The live stores. A slot leaves it only once taken (`RegistrySlot.tryTake()`) or at
    /// shutdown, so a slot found here with the lock held has no ``RegistrySlot/evicting``.
    @usableFromInline var live: [RegistryKey<ID>: RegistrySlot<StoreState, StoreAction>] = [:]
    /// The IDs whose store is being created or evicted.
    @usableFromInline var changing:
      [RegistryKey<ID>: RegistryChange<StoreState, StoreAction>] = [:]
    /// Lookups that took the lock since the snapshot was last taken down (or published).
    @usableFromInline var lockedLookups = 0
  }

  init() {}

  deinit {
    published.load(ordering: .sequentiallyConsistent)?.release()
  }

  /// Takes the published snapshot down; with the lock held, before `live` changes. The caller
  /// keeps the snapshot returned until the change is made, and then retires it
  /// (``RegistryReaders/retire(_:)``): so the change copies the dictionary's storage, which
  /// reads may still be reading, instead of writing it in place.
  func unpublish(_ contents: inout Contents) -> Snapshot? {
    contents.lockedLookups = 0
    return published.exchange(nil, ordering: .sequentiallyConsistent)?.takeRetainedValue()
  }

  /// Counts a lookup that took the lock, and publishes a snapshot of the live stores when
  /// none is and enough such lookups came since the last change; with the lock held.
  func noteLockedLookup(_ contents: inout Contents) {
    contents.lockedLookups += 1
    guard contents.lockedLookups >= max(16, contents.live.count / 2),
      published.load(ordering: .sequentiallyConsistent) == nil
    else { return }
    contents.lockedLookups = 0
    let snapshot = Snapshot(live: contents.live)
    published.store(Unmanaged.passRetained(snapshot), ordering: .sequentiallyConsistent)
  }
}

/// An ID whose store is not live yet, or no more.
@usableFromInline
enum RegistryChange<State: Sendable, Action: Sendable> {
  /// The store is being created, and `waiters` callers wait for it (the first one included):
  /// the creation takes a hold for each (`StoreRegistry.create(_:in:)`).
  case creating(task: Task<Unmanaged<RegistrySlot<State, Action>>, any Error>, waiters: Int)
  /// The store is being evicted: a request for the ID waits for the eviction (the eviction
  /// hook may be writing the store's state) and then creates a new store.
  case evicting(Task<Bool, Never>)
}

import Synchronization

/// One shard of a ``StoreRegistry``: the entries of the IDs that hash to it, behind one lock.
///
/// IDs are spread over several shards so that calls for different IDs on different threads
/// rarely take the same lock. An ID is in at most one of the two dictionaries.
@usableFromInline
final class RegistryShard<
  ID: Hashable & Sendable, StoreState: Sendable, StoreAction: Sendable
>: Sendable {
  @usableFromInline let contents = Mutex(Contents())
  /// Room after the lock and its contents, so that two shards' locks, which calls on
  /// different threads take, do not share a cache line (a shard is allocated on its own).
  private let spacing: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) =
    (0, 0, 0, 0, 0, 0, 0, 0)

  @usableFromInline
  struct Contents {
    /// The live stores. Each value's reference count is its pin (``RegistrySlot``): nothing
    /// else in the registry keeps a reference to a live slot while it waits.
    @usableFromInline var live: [RegistryKey<ID>: RegistrySlot<StoreState, StoreAction>] = [:]
    /// The IDs whose store is being created or evicted.
    @usableFromInline var changing: [RegistryKey<ID>: RegistryChange<StoreState, StoreAction>] =
      [:]
    /// Counts the uses of the shard's stores, to order them by recency (`RegistrySlot.lastUse`).
    @usableFromInline var uses: UInt64 = 0
  }

  init() {}
}

/// An ID whose store is not live yet, or no more.
@usableFromInline
enum RegistryChange<State: Sendable, Action: Sendable> {
  /// The store is being created, and `waiters` callers wait for it (the first one included):
  /// the creation retains the new slot once for each (`StoreRegistry.create(_:in:)`).
  case creating(task: Task<Unmanaged<RegistrySlot<State, Action>>, any Error>, waiters: Int)
  /// The store is being evicted: a request for the ID waits for the eviction (the eviction
  /// hook may be writing the store's state) and then creates a new store.
  case evicting(Task<Void, Never>)
}

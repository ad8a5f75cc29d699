import Synchronization

/// One shard of a ``StoreRegistry``: the entries of the IDs that hash to it, behind one lock.
///
/// IDs are spread over several shards so that calls for different IDs on different threads
/// rarely take the same lock.
@usableFromInline
final class RegistryShard<
  ID: Hashable & Sendable, StoreState: Sendable, StoreAction: Sendable
>: Sendable {
  @usableFromInline let contents = Mutex(Contents())

  @usableFromInline
  struct Contents {
    @usableFromInline var entries: [ID: RegistryEntry<StoreState, StoreAction>] = [:]
    /// Counts the uses of the shard's stores, to order them by recency (`RegistrySlot.lastUse`).
    @usableFromInline var uses: UInt64 = 0
  }

  init() {}
}

/// What a registry knows of one ID.
@usableFromInline
enum RegistryEntry<State: Sendable, Action: Sendable> {
  /// The store is being created. `waiters` callers wait for it (the first one included): the
  /// creation pins the new store once for each, so that none can lose it to an eviction.
  case creating(task: Task<RegistrySlot<State, Action>, any Error>, waiters: Int)
  /// The store is live.
  case live(RegistrySlot<State, Action>)
  /// The store is being evicted: a request for the ID waits for the eviction (the eviction
  /// hook may be writing the store's state) and then creates a new store.
  case evicting(Task<Void, Never>)
}

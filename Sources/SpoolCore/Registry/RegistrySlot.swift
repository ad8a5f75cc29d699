import Synchronization

/// A live store of a ``StoreRegistry``, with what eviction needs to know of its use.
///
/// `pins` counts the registry calls that hold the store now: it is raised only with the
/// shard's lock held, and eviction (which holds the same lock) takes only slots at zero, so a
/// held store is never evicted. It is lowered without the lock. The sweeper learns of uses
/// from `lastUse` (compared with `sweptUse`), without a clock read or a write per use beyond
/// the hold's own.
@usableFromInline
final class RegistrySlot<State: Sendable, Action: Sendable>: Sendable {
  @usableFromInline let store: Store<State, Action>
  @usableFromInline let pins = Atomic<Int>(0)
  /// The shard's use counter at the last use that pinned the store: orders the shard's stores
  /// from least to most recently used. Written with the shard's lock held.
  @usableFromInline let lastUse = Atomic<UInt64>(0)
  /// When the sweeper last saw the store used (or it was created), in nanoseconds on the
  /// registry's clock. Written with the shard's lock held.
  let idleSince = Atomic<Int64>(0)
  /// `lastUse` as the sweeper last saw it, or `UInt64.max` when the store was held then (the
  /// end of that hold is a use that `lastUse` does not show). Written by the sweeper with the
  /// shard's lock held.
  let sweptUse = Atomic<UInt64>(0)
  /// Shutdown's waiters for `pins` to reach zero; `nil` once released for good (the last pin
  /// went, or the shutdown's deadline passed).
  private let unpinWaiters = Mutex<[CheckedContinuation<Void, Never>]?>([])

  init(store: Store<State, Action>, pins: Int, idleSince: Int64) {
    self.store = store
    self.pins.store(pins, ordering: .relaxed)
    self.idleSince.store(idleSince, ordering: .relaxed)
  }

  /// Ends one hold of the store; `shuttingDown` wakes a shutdown that waits for the last one.
  @inlinable
  func unpin(shuttingDown: () -> Bool) {
    if pins.subtract(1, ordering: .sequentiallyConsistent).newValue == 0 && shuttingDown() {
      release()
    }
  }

  /// Waits until no registry call holds the store, or ``release()`` was called.
  func waitUntilUnpinned() async {
    await withCheckedContinuation { continuation in
      let resumeNow = unpinWaiters.withLock { waiters -> Bool in
        guard waiters != nil, pins.load(ordering: .sequentiallyConsistent) > 0 else {
          return true
        }
        waiters!.append(continuation)
        return false
      }
      if resumeNow { continuation.resume() }
    }
  }

  /// Wakes every waiter of ``waitUntilUnpinned()``, now and later.
  @usableFromInline
  func release() {
    let waiters = unpinWaiters.withLock { waiters in
      defer { waiters = nil }
      return waiters ?? []
    }
    for waiter in waiters { waiter.resume() }
  }
}

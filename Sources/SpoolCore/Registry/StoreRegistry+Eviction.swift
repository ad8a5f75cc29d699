extension StoreRegistry {
  /// Whether eviction may take `slot`, as far as can be seen without taking it: nobody holds
  /// it, and under ``StoreRegistryConfiguration/RunningEffectsPolicy/keepStore`` none of its
  /// effects runs. A hold may come right after: ``take(_:)`` decides.
  func looksEvictable(_ slot: Slot) -> Bool {
    guard !slot.isHeld else { return false }
    if configuration.runningEffects.keepsStoresWithEffects {
      return slot.store.runningEffectCount == 0
    }
    return true
  }

  /// Takes `slot` for eviction if it may be evicted now: nobody holds it (and nobody can hold
  /// it after this returns `true`), and under
  /// ``StoreRegistryConfiguration/RunningEffectsPolicy/keepStore`` none of its effects runs.
  /// With the shard's lock held; a `true` must be followed by ``beginEviction(of:in:shard:)``
  /// before the lock is released. A synchronous body that found the store before the take
  /// may still be using it, without a hold: the eviction waits for it, and looks at the
  /// effects again after (``evict(_:slot:shard:)``).
  ///
  /// Never once shutdown has begun: ``shutdown(deadline:)`` sets its flag and then collects
  /// every shard's evictions with the shard's lock, so that none begins after it looked.
  func take(_ slot: Slot) -> Bool {
    guard !shuttingDown.load(ordering: .sequentiallyConsistent) else { return false }
    guard slot.tryTake() else { return false }
    // Looked at once taken: no call holds the store, so none can start its effects now (but a
    // synchronous body in progress: the eviction looks again once it ended).
    if configuration.runningEffects.keepsStoresWithEffects
      && slot.store.runningEffectCount != 0
    {
      slot.untake()
      return false
    }
    return true
  }

  /// Replaces the live entry of `key` by an eviction, and starts it; with the shard's lock
  /// held, after ``take(_:)``. The caller calls `readers.reclaim()` after the lock.
  @discardableResult
  func beginEviction(
    of key: Key, in contents: inout Shard.Contents, shard: Shard
  ) -> Task<Bool, Never> {
    let takenDown = shard.unpublish(&contents)
    guard let slot = contents.live.removeValue(forKey: key) else {
      preconditionFailure("Internal inconsistency: an eviction began without a live store")
    }
    readers.retire(takenDown)
    let eviction = Task { await self.evict(key, slot: slot, shard: shard) }
    contents.changing[key] = .evicting(eviction)
    liveCount.subtract(1, ordering: .relaxed)
    return eviction
  }

  /// Reduces what the store has queued, shuts it down, gives its final state to `onEvict`,
  /// and then forgets the ID, so that the next request for it creates a new store; `true`.
  ///
  /// First waits for the synchronous bodies that found the store before it was taken
  /// (``withLiveStore(_:_:)``), and reduces what is queued: under
  /// ``StoreRegistryConfiguration/RunningEffectsPolicy/keepStore``, an effect that one of
  /// those actions started keeps the store live (`false`).
  func evict(_ key: Key, slot: Slot, shard: Shard) async -> Bool {
    publishCount()
    await readers.waitForReadsInProgress()
    await slot.store.settleQueue()
    if configuration.runningEffects.keepsStoresWithEffects
      && slot.store.runningEffectCount != 0
    {
      keep(key, slot: slot, shard: shard)
      return false
    }
    await slot.store.shutdown()
    if let onEvict {
      await onEvict(key.id, await slot.store.state)
    }
    shard.contents.withLock { contents in
      guard case .evicting? = contents.changing.removeValue(forKey: key) else {
        preconditionFailure("Internal inconsistency: an eviction lost its entry")
      }
    }
    readers.retire(slot)
    readers.reclaim()
    return true
  }

  /// Makes the slot of an eviction that did not happen live again, as it was.
  private func keep(_ key: Key, slot: Slot, shard: Shard) {
    let takenDown = shard.contents.withLock { contents -> Shard.Snapshot? in
      guard case .evicting? = contents.changing.removeValue(forKey: key) else {
        preconditionFailure("Internal inconsistency: an eviction lost its entry")
      }
      // Untaken under the lock: a locked lookup that finds the slot live holds it.
      slot.untake()
      contents.live[key] = slot
      return shard.unpublish(&contents)
    }
    readers.retire(takenDown)
    liveCount.add(1, ordering: .relaxed)
    publishCount()
    readers.reclaim()
  }

  /// Evicts least recently used stores until at most `maximum` are live, looking in the shard
  /// `first` first, then in the others; stops when no store is evictable.
  ///
  /// - Complexity: O(n) in the number of entries of the shards it looks in, with each
  ///   shard's lock held while it looks.
  func evictForBound(maximum: Int, startingAt first: Int) {
    var index = first
    var shardsWithoutVictim = 0
    while liveCount.load(ordering: .relaxed) > maximum && shardsWithoutVictim < shards.count {
      let shard = shards[index]
      let evicted = shard.contents.withLock { contents -> Bool in
        // A store found least recently used may be held before it is taken: look again,
        // a few times (each miss is a call that just used that store).
        for _ in 0..<3 {
          var victim: (key: Key, slot: Slot, lastUse: UInt64)?
          for (key, slot) in contents.live where looksEvictable(slot) {
            let lastUse = slot.lastUse.load(ordering: .relaxed)
            if victim == nil || lastUse < victim!.lastUse {
              victim = (key, slot, lastUse)
            }
          }
          guard let victim else { return false }
          if take(victim.slot) {
            beginEviction(of: victim.key, in: &contents, shard: shard)
            return true
          }
        }
        return false
      }
      readers.reclaim()
      if evicted {
        shardsWithoutVictim = 0
      } else {
        shardsWithoutVictim += 1
        index = (index + 1) & (shards.count - 1)
      }
    }
  }
}

extension StoreRegistry {
  /// Evicts the store of `id` now, when it is live and evictable: for a store that must not
  /// serve any more, such as one whose journal refuses its writes because another node took
  /// its entity over.
  ///
  /// The eviction is the one an idle timeout would run: the store reduces what it has queued,
  /// shuts down, and `onEvict` gets its final state; the next call for `id` creates a new
  /// store. It returns once the eviction ended, or at once when there was nothing to evict:
  /// no live store of `id` (none, still being created, or already being evicted), a store
  /// that a call holds now (`withStore`, `send`), a store whose effects run under
  /// ``StoreRegistryConfiguration/RunningEffectsPolicy/keepStore``, or a registry shutting
  /// down (which evicts every store itself).
  ///
  /// - Parameter id: The ID of the store to evict.
  /// - Returns: Whether this call evicted the store.
  ///
  /// ```swift
  /// do {
  ///   try await carts.send(.add(item), to: cartID)
  /// } catch let error as PostgresJournalError where error.code == .fenced {
  ///   await carts.evict(cartID)
  /// }
  /// ```
  @discardableResult
  public func evict(_ id: ID) async -> Bool {
    let key = Key(id)
    let shard = shards[shardIndex(for: key)]
    let eviction = shard.contents.withLock { contents -> Task<Bool, Never>? in
      guard let slot = contents.live[key], take(slot) else { return nil }
      return beginEviction(of: key, in: &contents, shard: shard)
    }
    readers.reclaim()
    guard let eviction else { return false }
    return await eviction.value
  }
}

extension StoreRegistry {
  /// Whether eviction may take `slot` now: nobody holds it, and under
  /// ``StoreRegistryConfiguration/RunningEffectsPolicy/keepStore`` none of its effects runs.
  /// With the shard's lock held (holds are taken with it), on the live dictionary's own
  /// reference (`contents.live.values[index]`): a copy of it would count as a hold.
  ///
  /// Never once shutdown has begun: ``shutdown(deadline:)`` sets its flag and then collects
  /// every shard's evictions with the shard's lock, so that none begins after it looked.
  func isEvictable(_ slot: inout Slot) -> Bool {
    guard !shuttingDown.load(ordering: .sequentiallyConsistent) else { return false }
    guard isKnownUniquelyReferenced(&slot) else { return false }
    if configuration.runningEffects.keepsStoresWithEffects {
      return slot.store.runningEffectCount == 0
    }
    return true
  }

  /// Replaces the live entry of `key` by an eviction, and starts it; with the shard's lock
  /// held, after ``isEvictable(_:)``.
  @discardableResult
  func beginEviction(
    of key: Key, in contents: inout Shard.Contents, shard: Shard
  ) -> Task<Void, Never> {
    guard let slot = contents.live.removeValue(forKey: key) else {
      preconditionFailure("Internal inconsistency: an eviction began without a live store")
    }
    let eviction = Task { await self.evict(key, slot: slot, shard: shard) }
    contents.changing[key] = .evicting(eviction)
    liveCount.subtract(1, ordering: .relaxed)
    return eviction
  }

  /// Reduces what the store has queued, shuts it down, gives its final state to `onEvict`,
  /// and then forgets the ID, so that the next request for it creates a new store.
  func evict(_ key: Key, slot: Slot, shard: Shard) async {
    publishCount()
    await slot.store.settleQueue()
    await slot.store.shutdown()
    if let onEvict {
      await onEvict(key.id, await slot.store.state)
    }
    shard.contents.withLock { contents in
      guard case .evicting? = contents.changing.removeValue(forKey: key) else {
        preconditionFailure("Internal inconsistency: an eviction lost its entry")
      }
    }
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
        var victim: (key: Key, lastUse: UInt64)?
        var position = contents.live.startIndex
        while position != contents.live.endIndex {
          if isEvictable(&contents.live.values[position]) {
            let lastUse = contents.live.values[position].lastUse.load(ordering: .relaxed)
            if victim == nil || lastUse < victim!.lastUse {
              victim = (contents.live.keys[position], lastUse)
            }
          }
          contents.live.formIndex(after: &position)
        }
        guard let victim else { return false }
        beginEviction(of: victim.key, in: &contents, shard: shard)
        return true
      }
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
    let eviction = shard.contents.withLock { contents -> Task<Void, Never>? in
      guard let position = contents.live.index(forKey: key),
        isEvictable(&contents.live.values[position])
      else { return nil }
      return beginEviction(of: key, in: &contents, shard: shard)
    }
    guard let eviction else { return false }
    await eviction.value
    return true
  }
}

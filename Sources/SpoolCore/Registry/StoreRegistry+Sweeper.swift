extension StoreRegistry {
  /// Starts the sweeper if the registry evicts idle stores and it does not run; called after
  /// a store became live.
  func startSweeperIfNeeded() {
    guard configuration.idleTimeout != nil else { return }
    lifecycle.withLock { lifecycle in
      guard lifecycle.sweeper == nil, lifecycle.shutdown == nil else { return }
      lifecycle.sweeper = Task { await self.sweep() }
    }
  }

  /// The sweeper: one pass over the live stores, then a sleep until the earliest time one of
  /// them could expire, as long as the registry holds stores and is not shutting down.
  ///
  /// A pass notes the stores used since the last pass (idle since now), evicts the evictable
  /// ones idle for `idleTimeout`, and notes the others (a held store, or one whose effects run
  /// under `keepStore`) as idle since now, to look at again one `idleTimeout` later.
  func sweep() async {
    guard let timeout = configuration.effectiveIdleTimeout?.registryNanoseconds else { return }
    while true {
      let now = clock.now().registryNanoseconds
      // A new epoch for this pass: a use that stores a value below it loaded the epoch before
      // this add (both sequentially consistent), so its hold came before the pass looked.
      let epoch = useEpoch.add(1, ordering: .sequentiallyConsistent).newValue
      var earliest = Int64.max
      for shard in shards {
        shard.contents.withLock { contents in
          var expired: [Key] = []
          for (key, slot) in contents.live {
            let idleSince: Int64
            switch look(at: slot, now: now, timeout: timeout, epoch: epoch) {
            case .idle(let since):
              idleSince = since
            case .expired(let lastUse):
              if take(slot, lastLookedAtUse: lastUse) {
                expired.append(key)
                continue
              }
              idleSince = now
            }
            slot.idleSince.store(idleSince, ordering: .relaxed)
            earliest = min(earliest, idleSince + timeout)
          }
          for key in expired {
            beginEviction(of: key, in: &contents, shard: shard)
          }
        }
      }
      readers.reclaim()
      onSweep?()
      let goOn = lifecycle.withLock { lifecycle -> Bool in
        // A store made live after this pass looked at its shard either sees the flag set (and
        // counts on this loop) or finds it cleared here and starts a new sweeper.
        if lifecycle.shutdown != nil || liveCount.load(ordering: .relaxed) == 0 {
          lifecycle.sweeper = nil
          return false
        }
        return true
      }
      guard goOn else { return }
      let wake = earliest == .max ? now + timeout : earliest
      do {
        try await clock.sleep(.nanoseconds(wake))
      } catch {
        // Cancelled by the shutdown, which has forgotten this task already.
        return
      }
    }
  }

  /// What one look of the sweeper found of a live store.
  enum Look {
    /// Not expired: idle since that time (now, when it was used since the last pass).
    case idle(since: Int64)
    /// Idle for the timeout, with `lastUse` as it was read: it may be evicted.
    case expired(lastUse: UInt64)
  }

  /// One look of the sweeper at a live store, in the pass of use epoch `epoch`; with the
  /// shard's lock held.
  ///
  /// Why no use is missed, though the uses of one epoch write `lastUse` once
  /// (`RegistrySlot.noteUse(in:)`): a value at or above `epoch` is a use during this pass,
  /// which later uses of the same epoch may not write again, so `sweptUse` becomes `.max` and
  /// the next pass counts the value as new. A value below `epoch` came from a use that loaded
  /// the epoch before this pass's add, and so took its hold before `isHeld` here reads it
  /// (sequentially consistent): such a use is still held (seen), or ended, and the first pass
  /// that saw its value below that pass's epoch saw it ended, and counted it as new then.
  private func look(at slot: Slot, now: Int64, timeout: Int64, epoch: UInt64) -> Look {
    // `lastUse` first, with acquire order: a hold whose `noteUse(in:)` this reads is seen by
    // `isHeld` after (or its end is). A hold that ends between the two reads unseen is caught
    // after the take, by `take(_:lastLookedAtUse:)`.
    let lastUse = slot.lastUse.load(ordering: .acquiring)
    if slot.isHeld || lastUse >= epoch {
      slot.sweptUse.store(.max, ordering: .relaxed)
      return .idle(since: now)
    }
    if lastUse != slot.sweptUse.load(ordering: .relaxed) {
      slot.sweptUse.store(lastUse, ordering: .relaxed)
      return .idle(since: now)
    }
    let idleSince = slot.idleSince.load(ordering: .relaxed)
    return now - idleSince >= timeout ? .expired(lastUse: lastUse) : .idle(since: idleSince)
  }

  /// Takes an expired store for eviction (``take(_:)``), unless a use came since the sweeper
  /// read `lastUse`: a hold given back before the take is read by the take's
  /// compare-exchange, so `lastUse` as that use left it (written, or already as new) is
  /// seen after it.
  private func take(_ slot: Slot, lastLookedAtUse lastUse: UInt64) -> Bool {
    guard take(slot) else { return false }
    guard slot.lastUse.load(ordering: .acquiring) == lastUse else {
      slot.untake()
      slot.sweptUse.store(.max, ordering: .relaxed)
      return false
    }
    return true
  }
}

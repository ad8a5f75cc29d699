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
      var earliest = Int64.max
      for shard in shards {
        shard.contents.withLock { contents in
          var expired: [(ID, Slot)] = []
          for (id, entry) in contents.entries {
            guard case .live(let slot) = entry else { continue }
            var idleSince = slot.idleSince.load(ordering: .relaxed)
            // Holds are taken with this lock held: a hold not seen here bumps `lastUse` after.
            let lastUse = slot.lastUse.load(ordering: .relaxed)
            if slot.pins.load(ordering: .sequentiallyConsistent) > 0 {
              slot.sweptUse.store(.max, ordering: .relaxed)
              idleSince = now
            } else if lastUse != slot.sweptUse.load(ordering: .relaxed) {
              slot.sweptUse.store(lastUse, ordering: .relaxed)
              idleSince = now
            } else if now - idleSince >= timeout {
              if isEvictable(slot) {
                expired.append((id, slot))
                continue
              }
              idleSince = now
            }
            slot.idleSince.store(idleSince, ordering: .relaxed)
            earliest = min(earliest, idleSince + timeout)
          }
          for (id, slot) in expired {
            beginEviction(of: id, slot: slot, in: &contents, shard: shard)
          }
        }
      }
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
}

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
          var expired: [Key] = []
          var position = contents.live.startIndex
          while position != contents.live.endIndex {
            defer { contents.live.formIndex(after: &position) }
            // First, before anything takes a reference of its own to the slot.
            let held = !isKnownUniquelyReferenced(&contents.live.values[position])
            var idleSince = look(
              at: contents.live.values[position], held: held, now: now, timeout: timeout)
            if idleSince == nil {
              if isEvictable(&contents.live.values[position]) {
                expired.append(contents.live.keys[position])
                continue
              }
              idleSince = now
            }
            contents.live.values[position].idleSince.store(idleSince!, ordering: .relaxed)
            earliest = min(earliest, idleSince! + timeout)
          }
          for key in expired {
            beginEviction(of: key, in: &contents, shard: shard)
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

  /// One look of the sweeper at a live store: since when it is idle, or `nil` when it has
  /// been idle for `timeout` and may be evicted. With the shard's lock held.
  private func look(at slot: Slot, held: Bool, now: Int64, timeout: Int64) -> Int64? {
    // Holds are taken with the shard's lock held: a hold not seen here bumps `lastUse` after.
    let lastUse = slot.lastUse.load(ordering: .relaxed)
    if held {
      slot.sweptUse.store(.max, ordering: .relaxed)
      return now
    }
    if lastUse != slot.sweptUse.load(ordering: .relaxed) {
      slot.sweptUse.store(lastUse, ordering: .relaxed)
      return now
    }
    let idleSince = slot.idleSince.load(ordering: .relaxed)
    return now - idleSince >= timeout ? nil : idleSince
  }
}

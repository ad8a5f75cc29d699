extension StoreRegistry {
  /// Shuts every store down: refuses new calls, lets the calls in flight end, waits for the
  /// stores' effects until `deadline` and cancels those still running then, and gives each
  /// store's final state to `onEvict`.
  ///
  /// From the moment it is called, every call for an ID throws ``StoreRegistryError`` with
  /// ``StoreRegistryError/Code/shutDown`` and creates no store. Creations in progress end
  /// first (their callers get their stores, and those stores are shut down with the others).
  /// Then, for each store: the calls that hold it end, its queued actions are reduced, its
  /// effects end (``Store/finish()``), it shuts down, and `onEvict` gets its state. At
  /// `deadline`, every store's running effects are cancelled, and so are the effects of
  /// actions reduced after it. A call that still holds its store then keeps it until it
  /// returns: its actions are reduced, never dropped, and the store shuts down after it (a
  /// `withStore` body that never returns keeps the shutdown waiting). Evictions in progress
  /// end before it returns.
  ///
  /// Calling it again, at once or later, waits for the first shutdown and does nothing more.
  ///
  /// - Parameter deadline: When running effects are cancelled; `.now` cancels them at once.
  ///
  /// ```swift
  /// await carts.shutdown(deadline: .now + .seconds(10))
  /// ```
  public func shutdown(deadline: ContinuousClock.Instant) async {
    let shutdown = lifecycle.withLock { lifecycle -> Task<Void, Never> in
      if let shutdown = lifecycle.shutdown { return shutdown }
      shuttingDown.store(true, ordering: .sequentiallyConsistent)
      lifecycle.sweeper?.cancel()
      lifecycle.sweeper = nil
      let shutdown = Task { await self.shutDownStores(deadline: deadline) }
      lifecycle.shutdown = shutdown
      return shutdown
    }
    await shutdown.value
  }

  /// The work of ``shutdown(deadline:)``, once.
  func shutDownStores(deadline: ContinuousClock.Instant) async {
    // A synchronous body that read the flag unset (`withLiveStore(_:_:)`) may still use its
    // store without a hold: those end before any store is collected.
    await readers.waitForReadsInProgress()
    // No creation or eviction starts any more: wait for those in progress, then take the
    // live stores out.
    var pending: [Task<Void, Never>] = []
    for shard in shards {
      let tasks = shard.contents.withLock { contents -> [Task<Void, Never>] in
        contents.changing.values.map { change in
          switch change {
          // Not one of the creation's waiters: takes no hold of the slot.
          case .creating(let task, _): Task { _ = try? await task.value }
          case .evicting(let eviction): Task { _ = await eviction.value }
          }
        }
      }
      pending += tasks
    }
    for task in pending { await task.value }
    var held: [ShutdownStore] = []
    for shard in shards {
      shard.contents.withLock { contents in
        let takenDown = shard.unpublish(&contents)
        for (key, slot) in contents.live { held.append(ShutdownStore(id: key.id, slot: slot)) }
        contents.live.removeAll()
        contents.changing.removeAll()
        readers.retire(takenDown)
      }
    }
    readers.reclaim()
    liveCount.store(0, ordering: .relaxed)
    publishCount()

    let stores = held.map { $0.slot.store }
    let deadlineTimer = Task {
      guard (try? await Task.sleep(until: deadline, clock: .continuous)) != nil else { return }
      for store in stores { store.cancelEffects() }
    }
    await withTaskGroup(of: Void.self) { group in
      // The calls still holding a store end on their own (no new one begins: a call that
      // adds a hold now sees the shutdown flag and takes it back): a store is taken once no
      // call holds it. Polled, with a pause that grows to 10 ms.
      var pause = Duration.microseconds(50)
      while true {
        var index = held.count
        while index > 0 {
          index -= 1
          guard held[index].slot.tryTake() else { continue }
          held.swapAt(index, held.count - 1)
          let store = held.removeLast()
          group.addTask { await self.finalize(store) }
        }
        if held.isEmpty { break }
        try? await Task.sleep(for: pause)
        pause = min(pause * 2, .milliseconds(10))
      }
    }
    deadlineTimer.cancel()
    await deadlineTimer.value
    readers.reclaim()
  }

  /// A store taken out at shutdown, with its ID.
  struct ShutdownStore: Sendable {
    let id: ID
    let slot: Slot
  }

  /// Lets a store's effects end (the deadline cancels them), shuts it down and gives its
  /// state to `onEvict`.
  private func finalize(_ store: ShutdownStore) async {
    await store.slot.store.finish()
    await store.slot.store.shutdown()
    if let onEvict {
      await onEvict(store.id, await store.slot.store.state)
    }
    // As an evicted slot (`evict(_:slot:shard:)`): freed after the reads that found it.
    readers.retire(store.slot)
  }
}

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
  /// `deadline`, stores still waiting are shut down at once, which cancels their effects (calls
  /// still holding a store past the deadline then find it shut down). Evictions in progress
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
    // No creation or eviction starts any more: wait for those in progress, then take the
    // live stores out.
    var pending: [Task<Void, Never>] = []
    for shard in shards {
      let tasks = shard.contents.withLock { contents -> [Task<Void, Never>] in
        contents.entries.values.compactMap { entry in
          switch entry {
          case .creating(let task, _): Task { _ = try? await task.value }
          case .evicting(let eviction): eviction
          case .live: nil
          }
        }
      }
      pending += tasks
    }
    for task in pending { await task.value }
    var stores: [(ID, Slot)] = []
    for shard in shards {
      shard.contents.withLock { contents in
        for (id, entry) in contents.entries {
          guard case .live(let slot) = entry else { continue }
          stores.append((id, slot))
        }
        contents.entries.removeAll()
      }
    }
    liveCount.store(0, ordering: .relaxed)
    publishCount()

    let deadlineTimer = Task {
      guard (try? await Task.sleep(until: deadline, clock: .continuous)) != nil else { return }
      for (_, slot) in stores {
        slot.release()
        await slot.store.shutdown()
      }
    }
    await withTaskGroup(of: Void.self) { group in
      for (id, slot) in stores {
        group.addTask {
          await slot.waitUntilUnpinned()
          await slot.store.finish()
          await slot.store.shutdown()
          if let onEvict = self.onEvict {
            await onEvict(id, await slot.store.state)
          }
        }
      }
    }
    deadlineTimer.cancel()
    await deadlineTimer.value
  }
}

/// The serial executor that a store and all the stores scoped from it share.
///
/// `Store` is an actor whose `unownedExecutor` is this actor's: the root store and its scoped
/// children then run on one serial executor, so a child forwards to its root without an actor
/// hop, and the drain loop (isolated to this actor) excludes `send` and vice versa. The drain
/// loop does not hold the `Store` itself, so that a store nobody references is deinitialized.
///
/// Without an executor of its own, the store runs on the queue of a default actor
/// (``DefaultQueue``), as any actor does: this actor lends that queue instead of being a
/// default actor itself, so that the same type can also run on an executor it was given
/// (SpoolIO's event-loop thread, for a store whose reduce and effects share the thread that
/// completes their I/O).
@usableFromInline
actor StoreIsolation {
  /// The default actor whose queue is the store's executor when it was given none.
  private let defaultQueue: DefaultQueue?
  /// The executor the store was given, kept alive as long as the store.
  private let customExecutor: (any SerialExecutor)?
  /// Read on every hop into the store: stored, rather than asked of either executor.
  @usableFromInline nonisolated let executor: UnownedSerialExecutor

  @usableFromInline nonisolated var unownedExecutor: UnownedSerialExecutor { executor }

  @usableFromInline init(executor: (any SerialExecutor)? = nil) {
    if let executor {
      defaultQueue = nil
      customExecutor = executor
      self.executor = executor.asUnownedSerialExecutor()
    } else {
      let queue = DefaultQueue()
      defaultQueue = queue
      customExecutor = nil
      self.executor = queue.unownedExecutor
    }
  }
}

/// A default actor, for its queue on Swift's cooperative pool (see ``StoreIsolation``).
private actor DefaultQueue {}

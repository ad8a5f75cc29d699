/// The serial executor that a store and all the stores scoped from it share.
///
/// `Store` is an actor whose `unownedExecutor` is its isolation's: the root store and its
/// scoped children then run on one serial executor, so a child forwards to its root without an
/// actor hop, and the drain loop (isolated to this actor) excludes `send` and vice versa. The
/// drain loop does not hold the `Store` itself, so that a store nobody references is
/// deinitialized.
///
/// Without an executor of its own, the store runs on the queue of a default actor
/// (``DefaultStoreIsolation``), as any actor does; with one (SpoolIO's event-loop thread, for a
/// store whose reduce and effects share the thread that completes their I/O), on that
/// executor (``ExecutorStoreIsolation``). Two types rather than one that lends a default
/// actor's queue: an actor that names its executor is not a default actor, and would need a
/// second object for the queue, in every idle store.
@usableFromInline
protocol StoreIsolation: Actor {}

/// The isolation of a store that was given `executor`, or, given none, of one that runs on its
/// own default actor's queue.
@usableFromInline
func makeStoreIsolation(executor: (any SerialExecutor)?) -> any StoreIsolation {
  if let executor { return ExecutorStoreIsolation(executor: executor) }
  return DefaultStoreIsolation()
}

/// A default actor, whose queue on Swift's cooperative pool is the store's executor.
@usableFromInline
actor DefaultStoreIsolation: StoreIsolation {
  @usableFromInline init() {}
}

/// An actor on an executor the store was given, which it keeps alive as long as the store.
@usableFromInline
actor ExecutorStoreIsolation: StoreIsolation {
  private let executor: any SerialExecutor
  /// Read on every hop into the store: stored, rather than asked of the executor.
  private let unowned: UnownedSerialExecutor

  @usableFromInline nonisolated var unownedExecutor: UnownedSerialExecutor { unowned }

  @usableFromInline init(executor: any SerialExecutor) {
    self.executor = executor
    self.unowned = executor.asUnownedSerialExecutor()
  }
}

/// The effects that one action started, as a handle to wait for or cancel.
///
/// Returned by ``Store/send(_:)-(Action)``: when `send` returns, the action has been reduced
/// (with the actions its effects sent synchronously); the `StoreTask` tracks the asynchronous
/// effects that those reduces started.
///
/// ```swift
/// let task = await store.send(.refresh)
/// await task.finish()   // the refresh effect has ended, and what it sent has been reduced
/// ```
public struct StoreTask: Hashable, Sendable {
  @usableFromInline let tasks: [Task<Void, any Error>]
  /// Reduces what the store has queued (with the store's lock): ``finish()`` calls it after the
  /// tasks end, so that the actions they sent have been reduced when it returns. `nil` when the
  /// action started no task.
  @usableFromInline let settle: (@Sendable () async -> Void)?

  @inlinable
  init(tasks: [Task<Void, any Error>], settle: (@Sendable () async -> Void)? = nil) {
    self.tasks = tasks
    self.settle = tasks.isEmpty ? nil : settle
  }

  /// Waits for every effect the action started to end, and for the actions they sent to be
  /// reduced, as TCA's `StoreTask.finish()` does.
  ///
  /// Effects that those actions start in turn are not waited for: use ``Store/finish()`` to
  /// wait for the store to be idle.
  ///
  /// ```swift
  /// await store.send(.load).finish()
  /// let loaded = await store.state.items   // the effect's response has been reduced
  /// ```
  public func finish() async {
    for task in tasks { _ = await task.result }
    await settle?()
  }

  /// Cancels every effect the action started; the effects end as cancelled, not as failures.
  ///
  /// That includes the effects of the actions those effects sent synchronously
  /// (``Effect/send(_:)``), which `send` reduced. Where Spool differs from TCA: the effects of
  /// actions that a `.run` sends later are not cancelled (TCA's cancellation cascades to
  /// them); give such a chain a cancellation ID and cancel it by ID
  /// (``Effect/cancel(id:)``). `TestStoreTask.cancel()` does cascade, as TCA's does.
  ///
  /// ```swift
  /// let task = await store.send(.startTimer)
  /// task.cancel()
  /// ```
  public func cancel() {
    for task in tasks { task.cancel() }
  }

  /// Whether all of the action's effects were cancelled.
  public var isCancelled: Bool {
    tasks.allSatisfy(\.isCancelled)
  }

  /// Whether the action started no asynchronous effect.
  public var isEmpty: Bool { tasks.isEmpty }

  /// Two handles are equal when they track the same tasks.
  public static func == (lhs: StoreTask, rhs: StoreTask) -> Bool { lhs.tasks == rhs.tasks }

  public func hash(into hasher: inout Hasher) { hasher.combine(tasks) }
}

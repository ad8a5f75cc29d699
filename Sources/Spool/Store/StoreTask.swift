/// The effects that one action started, as a handle to wait for or cancel.
///
/// Returned by ``Store/send(_:)``: when `send` returns, the action has been reduced (with the
/// actions its effects sent synchronously); the `StoreTask` tracks the asynchronous effects that
/// those reduces started.
///
/// ```swift
/// let task = await store.send(.refresh)
/// await task.finish()   // the refresh effect has ended
/// ```
public struct StoreTask: Hashable, Sendable {
  @usableFromInline let tasks: [Task<Void, any Error>]

  @inlinable
  init(tasks: [Task<Void, any Error>]) {
    self.tasks = tasks
  }

  /// Waits for every effect the action started to end.
  ///
  /// Effects that those effects start later (through actions they send) are not included: use
  /// ``Store/finish()`` to wait for the store to be idle.
  public func finish() async {
    for task in tasks { _ = await task.result }
  }

  /// Cancels every effect the action started; the effects end as cancelled, not as failures.
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
}

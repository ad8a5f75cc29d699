import ConcurrencyExtras
import Synchronization

/// The tasks a store's effects run in, registered under their cancellation IDs.
///
/// Every asynchronous effect runs in a task created here. The registry keeps the task until it
/// ends, so that `Effect.cancel(id:)`, `cancelInFlight`, ``Store/shutdown()`` and
/// ``Store/finish()`` can reach it. It is used from the store's executor (to start and cancel)
/// and from the effect tasks themselves (to deregister when they end), hence the mutex.
@usableFromInline
final class EffectRegistry: Sendable {
  /// The registry of the store whose effect is running in the current task.
  @TaskLocal static var current: EffectRegistry?

  private let machine = Mutex(EffectRegistryStateMachine())

  /// The executor effect tasks prefer, if the store was given one.
  let executor: (any TaskExecutor)?

  init(executor: (any TaskExecutor)? = nil) {
    self.executor = executor
  }

  /// Starts `operation` in a new task registered under `ids`.
  ///
  /// The task is created while the registry is locked, so that it cannot end (and deregister)
  /// before it is registered; its body waits for the lock only when it ends.
  ///
  /// - Complexity: O(`ids.count`), plus one task creation.
  @discardableResult
  func spawn<T: Sendable>(
    ids: [AnyHashableSendable],
    priority: TaskPriority?,
    operation: @escaping @Sendable () async throws -> T
  ) -> Task<T, any Error> {
    let (task, action) = machine.withLock { machine in
      let token = machine.makeToken()
      let task = makeTask(priority: priority) {
        defer { self.finished(token) }
        return try await EffectRegistry.$current.withValue(self) { try await operation() }
      }
      return (task, machine.register(task, token: token, ids: ids))
    }
    if case let .cancel(task) = action { task.cancel() }
    return task
  }

  private func makeTask<T: Sendable>(
    priority: TaskPriority?,
    body: @escaping @Sendable () async throws -> T
  ) -> Task<T, any Error> {
    if let executor {
      return Task(executorPreference: executor, priority: priority, operation: body)
    }
    return Task(priority: priority, operation: body)
  }

  private func finished(_ token: EffectRegistryStateMachine.Token) {
    let waiters = machine.withLock { $0.finished(token) }
    for waiter in waiters { waiter.resume() }
  }

  /// Cancels every task registered under `id`.
  func cancel(id: AnyHashableSendable) {
    let tasks = machine.withLock { $0.takeTasks(for: id) }
    for task in tasks { task.cancel() }
  }

  /// Cancels every task, now and for any task registered later.
  func shutdown() {
    let tasks = machine.withLock { $0.shutdown() }
    for task in tasks { task.cancel() }
  }

  /// Suspends until no task is registered.
  func waitUntilIdle() async {
    await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
      let resumeNow = machine.withLock { $0.waitUntilIdle(continuation) }
      if resumeNow { continuation.resume() }
    }
  }

  /// The number of running effect tasks.
  var count: Int { machine.withLock { $0.count } }


  /// Runs `operation` in a task registered under `id` and waits for it; cancelling the waiting
  /// task cancels the registered one.
  func runCancellable<T: Sendable>(
    id: AnyHashableSendable,
    cancelInFlight: Bool,
    operation: @escaping @Sendable () async throws -> T
  ) async throws -> T {
    if cancelInFlight { cancel(id: id) }
    let task = spawn(ids: [id], priority: nil, operation: operation)
    return try await withTaskCancellationHandler {
      try await task.value
    } onCancel: {
      task.cancel()
    }
  }
}

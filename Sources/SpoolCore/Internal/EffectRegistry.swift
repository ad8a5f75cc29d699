import ConcurrencyExtras
import Synchronization

/// The tasks a store's effects run in, registered under their cancellation IDs.
///
/// Every asynchronous effect runs in a task created here. The registry keeps the task until it
/// ends, so that `Effect.cancel(id:)`, `cancelInFlight`, ``Store/shutdown()`` and
/// ``Store/finish()`` can reach it; a task started immediately that ends before its start
/// returns is never registered (``immediateStart`` says why that is safe). It is used by the
/// store, from whichever thread holds it (to start and cancel), and from the effect tasks
/// themselves (to deregister when they end), hence the mutex.
@usableFromInline
final class EffectRegistry: Sendable {
  /// The registry of the store whose effect is running in the current task.
  static var current: EffectRegistry? { currentLocal.get() }

  /// The task-local value behind ``current``, pushed by every effect task. (Spelled out
  /// rather than `@TaskLocal`, whose projection cannot be used from inlinable code.)
  @usableFromInline static let currentLocal = TaskLocal<EffectRegistry?>(wrappedValue: nil)

  /// Whether the current task already has this registry bound as ``current``: a task that an
  /// effect started from the store's drain loop copied the loop's binding, and need not push
  /// it again. Reads the binding in place (``TaskLocal/boundValue()``): no copy, no retain.
  @inlinable
  var isCurrent: Bool {
    guard let bound = Self.currentLocal.boundValue() else { return false }
    // `EffectRegistry?` is one pointer, null for `nil`.
    return bound.load(as: UnsafeRawPointer?.self)
      == UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque())
  }

  /// Runs `operation` with this registry as ``current``, pushing it only if it is not already.
  @inlinable
  nonisolated(nonsending) func withCurrent<T: Sendable>(
    _ operation: () async throws -> T
  ) async rethrows -> T {
    if isCurrent { return try await operation() }
    return try await Self.currentLocal.withValue(self) { try await operation() }
  }

  private let machine = Mutex(EffectRegistryStateMachine())

  /// The executor effect tasks prefer, if the store was given one.
  @usableFromInline let executor: (any TaskExecutor)?

  /// Whether effect tasks without a cancellation ID start immediately: on the thread that
  /// starts them, synchronously, until their first suspension (`Task.immediate`), rather than
  /// as a job scheduled on their executor (``makeTask(priority:ids:operation:)`` says
  /// why effects with an ID do not).
  ///
  /// A store's registry does: an effect that only sends (or does some work and then sends)
  /// ends on the thread that reduced its action, with no job scheduled and no thread woken
  /// (and the store starts the plain runs of a pass together in one such task,
  /// `EffectRunner`); `spool bench effects` is clearly slower with scheduled tasks. A test
  /// store's registry does not: there the test's executor decides when effects run.
  @usableFromInline let startsImmediately: Bool

  init(executor: (any TaskExecutor)? = nil, startsImmediately: Bool) {
    self.executor = executor
    self.startsImmediately = startsImmediately
  }

  /// Starts `operation` in a new task registered under `ids`, after cancelling the tasks under
  /// `replacing` (`cancelInFlight`; in the same lock as the reservation).
  ///
  /// The slot is reserved before the task exists and the task attached after, so the lock is
  /// not held while the task is created; a task that ends or is cancelled in between is
  /// handled by the state machine. Inlinable so that the store's specialized effect path
  /// creates the task without generic metadata lookups.
  ///
  /// - Complexity: O(`ids.count`), plus one task creation.
  @inlinable
  @discardableResult
  func spawn<T: Sendable>(
    ids: [AnyHashableSendable],
    replacing: AnyHashableSendable? = nil,
    priority: TaskPriority?,
    operation: @escaping @Sendable () async throws -> T
  ) -> Task<T, any Error> {
    if startsImmediately && ids.isEmpty && replacing == nil {
      let start = beginImmediateStart()
      let task = makeTask(priority: priority, ids: []) { [self] in
        defer { immediateEffectEnded(start.id) }
        return try await withCurrent { try await operation() }
      }
      endImmediateStart(start, task: task)
      return task
    }
    let token = reserve(ids: ids, replacing: replacing)
    let task = makeTask(priority: priority, ids: ids) { [self] in
      defer { finished(token) }
      return try await withCurrent { try await operation() }
    }
    attach(task, to: token)
    return task
  }

  /// Creates the task of an effect, on ``executor`` if there is one. The caller registers it
  /// (`reserve` before, `attach` after).
  ///
  /// It starts immediately when the registry does (``startsImmediately``) and `ids` is empty.
  /// An effect registered under an ID is there to be cancelled, often before it has done
  /// anything (`cancelInFlight` on every keystroke, say): as a scheduled task, a cancellation
  /// that comes before the task has run costs nothing but the task, while an immediate task
  /// has already started its work (a sleep's timer, a request) and must undo it: with every
  /// effect started immediately, `spool bench cancellation` made about half as many restarts.
  ///
  /// A store given an executor for its effects (SpoolIO's loop thread) starts them immediately
  /// too: their first steps run on the store's thread, and they go on on that executor after
  /// their first suspension (`spool bench file-io` reads faster so than with tasks scheduled
  /// on the loop thread).
  ///
  /// Without an executor, the immediate task is created by
  /// ``Task/startImmediately(priority:operation:)`` rather than `Task.immediate`, which on
  /// Swift 6.3 gives every task an executor-preference record (that function says why);
  /// with `Task.immediate`, `spool bench effects` made about a third fewer round trips.
  @inlinable
  func makeTask<T: Sendable>(
    priority: TaskPriority?,
    ids: [AnyHashableSendable],
    operation: sending @escaping () async throws -> T
  ) -> Task<T, any Error> {
    switch (startsImmediately && ids.isEmpty, executor) {
    case (true, let executor?):
      Task.immediate(priority: priority, executorPreference: executor, operation: operation)
    case (true, nil):
      Task.startImmediately(priority: priority, operation: operation)
    case (false, let executor?):
      Task(executorPreference: executor, priority: priority, operation: operation)
    case (false, nil):
      Task(priority: priority, operation: operation)
    }
  }

  // MARK: Immediate starts

  /// The immediate start under way in the store, if any: its ``ImmediateStart/id``
  /// while the task runs synchronously inside `makeTask`, that id plus one once the task has
  /// ended there, 0 when no start is under way.
  ///
  /// Why: most effects that start immediately end before `makeTask` returns (an effect that
  /// only sends back does), and for those the registry has nothing to track. Registering them
  /// anyway cost three lock round trips per effect (reserve, attach, finished: a visible share
  /// of a profile of `spool bench effects`). So an immediate start registers its task only if
  /// it is still running when `makeTask` returns (one lock, and one more when it ends), and
  /// one that ended inside costs three atomic operations on this word (the starter's two
  /// exchanges, the task's compare-and-swap), one on ``immediateStarts`` and none on the lock.
  /// One word is enough because a store's immediate starts are made by the holder of its
  /// consumer lock, one at a time (a start inside another's synchronous part interrupts it,
  /// ``ImmediateStart``). A task that suspended, resumed elsewhere and ended before the
  /// starter looked counts as ended inside: it is over, and was never visible to `finish()`,
  /// which holds the consumer lock as the starter does, nor to `shutdown()`, which takes the
  /// lock that registration takes (a task registered after it is cancelled at once).
  @usableFromInline let immediateStart = Atomic<UInt64>(0)

  /// Numbers immediate starts: ids are even, from 2 (the odd value after one marks it ended;
  /// 2^63 starts would pass before one wrapped to 0).
  @usableFromInline let immediateStarts = Atomic<UInt64>(0)

  /// An immediate start under way: its id, and the start it interrupted, if one was (a start
  /// inside another's synchronous part, on the same store).
  @usableFromInline
  typealias ImmediateStart = (id: UInt64, interrupted: UInt64)

  /// Begins an immediate start, before its task is created; by the holder of the store's
  /// consumer lock.
  @inlinable
  func beginImmediateStart() -> ImmediateStart {
    let id = immediateStarts.wrappingAdd(2, ordering: .relaxed).newValue
    return (id, immediateStart.exchange(id, ordering: .acquiringAndReleasing))
  }

  /// Ends an immediate start once `makeTask` has returned: restores the start it interrupted,
  /// and registers `task` if it has not ended (the word still held the id, not `id + 1`; a
  /// task that ends after this exchange fails its compare-and-swap and deregisters under the
  /// lock).
  @inlinable
  func endImmediateStart(_ start: ImmediateStart, task: some RegisteredTask) {
    let seen = immediateStart.exchange(start.interrupted, ordering: .acquiringAndReleasing)
    if seen == start.id { registerStarted(task, start: start.id) }
  }

  /// The task of an immediate start ended; from the task itself.
  @inlinable
  func immediateEffectEnded(_ id: UInt64) {
    let insideTheStart = immediateStart.compareExchange(
      expected: id, desired: id &+ 1, ordering: .acquiringAndReleasing
    ).exchanged
    if !insideTheStart { startedEffectEnded(id) }
  }

  /// Registers the task of immediate start `id`, still running when its start returned.
  @usableFromInline
  func registerStarted(_ task: some RegisteredTask, start id: UInt64) {
    carryOut(machine.withLock { $0.registerStarted(task, start: id) }, on: task)
  }

  /// The task of immediate start `id` ended after its start returned.
  @usableFromInline
  func startedEffectEnded(_ id: UInt64) {
    resume(machine.withLock { $0.startedEffectEnded(id) })
  }

  // MARK: Registration

  /// Reserves the slot of a task about to be created under `ids`, after taking the tasks under
  /// `replacing` (`cancelInFlight`) out of the registry, and cancels those outside the lock:
  /// one lock for both, where a restart of an effect took two (the cancelled tasks, ending on
  /// other threads, contend for that lock).
  @usableFromInline
  func reserve(ids: [AnyHashableSendable], replacing id: AnyHashableSendable? = nil) -> Int {
    // The IDs boxed and hashed before the lock is taken, and once for both steps.
    let keys = ids.map(EffectKey.init)
    let replacedKey = id.map(EffectKey.init)
    let (token, replaced) = machine.withLock { machine in
      let replaced = replacedKey.map { machine.takeTasks(for: $0) } ?? []
      return (machine.reserve(keys: keys), replaced)
    }
    for task in replaced { task.cancel() }
    return token
  }

  /// Whether the effect reserved under `token`, whose task the caller has not created yet,
  /// should still start; one that should not (cancelled by its ID meanwhile, or the registry
  /// shut down) is forgotten, as if its task had run and ended.
  @usableFromInline
  func shouldStart(_ token: Int) -> Bool {
    switch machine.withLock({ $0.shouldStart(token) }) {
    case .start:
      return true
    case let .drop(waiters):
      resume(waiters)
      return false
    }
  }

  /// Hands over the task created for `token`; cancels it if it was cancelled meanwhile or the
  /// registry is shut down.
  @usableFromInline
  func attach(_ task: some RegisteredTask, to token: Int) {
    carryOut(machine.withLock { $0.attach(task, to: token) }, on: task)
  }

  /// The task of `token` ended.
  @usableFromInline
  func finished(_ token: Int) {
    resume(machine.withLock { $0.finished(token) })
  }

  /// Carries out what the state machine said of a task just handed to it, outside the lock.
  private func carryOut(
    _ action: EffectRegistryStateMachine.AttachAction, on task: some RegisteredTask
  ) {
    if case .cancel = action { task.cancel() }
  }

  /// Resumes the waiters of ``waitUntilIdle()`` that the state machine released, outside the lock.
  private func resume(_ waiters: [UnsafeContinuation<Void, Never>]) {
    for waiter in waiters { waiter.resume() }
  }

  /// Cancels every task registered under `id`.
  @usableFromInline
  func cancel(id: AnyHashableSendable) {
    let tasks = machine.withLock { $0.takeTasks(for: id) }
    for task in tasks { task.cancel() }
  }

  /// Cancels every task, now and for any task registered later.
  func shutdown() {
    let tasks = machine.withLock { $0.shutdown() }
    for task in tasks { task.cancel() }
  }

  /// Numbers the waiters of ``waitUntilIdle()``, so that a cancelled one can withdraw.
  private let idleWaiterIDs = Atomic<UInt64>(0)

  /// Suspends until no task is registered, or until the waiting task is cancelled.
  ///
  /// A cancellation before the waiter is kept is seen by the check after keeping it; one after
  /// it withdraws the waiter in the handler. Whichever of the two, or of the registry becoming
  /// idle, takes the waiter out of the state machine resumes it: exactly once.
  func waitUntilIdle() async {
    let id = idleWaiterIDs.wrappingAdd(1, ordering: .relaxed).newValue
    await withTaskCancellationHandler {
      await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
        let resumeNow = machine.withLock { $0.waitUntilIdle(continuation, id: id) }
        if resumeNow {
          continuation.resume()
        } else if Task.isCancelled {
          machine.withLock { $0.withdrawIdleWaiter(id) }?.resume()
        }
      }
    } onCancel: {
      machine.withLock { $0.withdrawIdleWaiter(id) }?.resume()
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
    let task = spawn(
      ids: [id], replacing: cancelInFlight ? id : nil, priority: nil, operation: operation)
    return try await withTaskCancellationHandler {
      try await task.value
    } onCancel: {
      task.cancel()
    }
  }
}

/// What the pool's state machine needs to know of an operation: whether it was completed while
/// it waited in the queue (a cancellation completes a queued operation in place, and the queue
/// skips it when its turn comes; see `ThreadPoolBackend.cancel`).
protocol WorkerPoolOperation: AnyObject {
  var isCompleted: Bool { get }
}

extension IOOperation: WorkerPoolOperation {
  var isCompleted: Bool { phase == .completed }
}

/// The thread pool's queue, workers and shutdown, as one state with the data of each phase.
///
/// `ThreadPoolBackend` keeps it in a `Mutex`; every method is a transition that returns what the
/// caller must carry out: wake a parked worker, start a worker, fail operations, resume waiters.
/// The caller writes a worker's eventfd while it still holds the lock (a worker closes its
/// descriptors under the same lock, so a descriptor written under it is still that worker's)
/// and resumes tasks after releasing it. Tests drive the machine with plain values.
///
/// Phases: `accepting` (the queue, the parked workers, the running operations); `stopping`
/// (only the count of workers still to exit and the shutdown's waiters: the queue was failed and
/// the parked workers woken as it began, and nothing is queued afterwards); `stopped` (no
/// worker left). An impossible transition ends the process with a message naming the phase and
/// the event.
struct WorkerPoolStateMachine<Operation: WorkerPoolOperation, Worker, Waiter> {
  /// The pool while it accepts operations.
  struct Pool {
    /// Queued operations from `queueHead` on; the oldest is taken first.
    var queue: [Operation] = []
    var queueHead = 0
    /// Idle workers, most recently parked last (woken first: warm caches).
    var parked: [Worker] = []
    /// Workers started or being started, parked or not.
    var workers = 0
    /// Operations taken by a worker and not finished yet.
    var running: [Operation] = []
  }

  enum State {
    case accepting(Pool)
    /// Shutdown began: `workers` have yet to exit; `waiters` are resumed when the last does.
    case stopping(workers: Int, waiters: [Waiter])
    /// Shutdown finished: no worker is left.
    case stopped
    /// Only inside a transition, so that the data taken out of the state is uniquely referenced
    /// while it changes (no copy of the queue on an append).
    case modifying
  }

  enum SubmitAction {
    /// The pool is shutting down: fail the operation (a close still closes).
    case reject
    /// The operation was cancelled before its submission: fail it with `ECANCELED`, unqueued.
    case failCancelled
    /// Queued: wake this parked worker (with the lock held).
    case unpark(Worker)
    /// Queued: start a worker (counted already; call ``workerFailedToStart()`` if it fails).
    case spawnWorker
    /// Queued: every worker is busy and the pool has its maximum; the first one free takes it.
    case none
  }

  enum WorkerAction {
    /// Run this operation (recorded as running; report its end with ``finished(_:)``).
    case run(Operation)
    /// Nothing to do: the worker is parked; it waits until it is woken, then asks again.
    case park
    /// The pool is shutting down: the worker releases its descriptors (with the lock held) and
    /// exits; it resumes `waiters` (non-empty when it was the last) after releasing the lock.
    case exit(resuming: [Waiter])
  }

  enum ShutdownAction {
    /// A shutdown was under way: the waiter, if any, waits for it.
    case none
    /// The pool has stopped already: resume the waiter now.
    case resume(Waiter)
    /// The shutdown begins: fail the `queued` operations (in order), end the `running` ones,
    /// wake the `parked` workers (with the lock held) so that they exit; then resume `waiter`,
    /// set when the pool had no worker (it has stopped).
    case begin(queued: [Operation], running: [Operation], parked: [Worker], resume: Waiter?)
  }

  enum StartFailureAction {
    /// Other workers remain: they take the queue.
    case none
    /// No worker is left to take the queue: fail these operations (in order).
    case failQueued([Operation])
    /// No worker is left in a shutdown: it has finished; resume these waiters.
    case resume([Waiter])
  }

  let maximumWorkers: Int
  private(set) var state = State.accepting(Pool())

  init(maximumWorkers: Int) {
    precondition(maximumWorkers > 0, "A worker pool needs room for at least one worker")
    self.maximumWorkers = maximumWorkers
  }

  /// Queues `operation` (`cancelled`: its task was cancelled before the submission).
  ///
  /// - Complexity: amortized O(1).
  mutating func submit(_ operation: Operation, cancelled: Bool) -> SubmitAction {
    switch state {
    case .accepting(var pool):
      // A shutdown's answer takes precedence over a cancellation's (it closes a close's
      // descriptor); the phase is checked first for that reason.
      if cancelled { return .failCancelled }
      state = .modifying
      defer { state = .accepting(pool) }
      pool.queue.append(operation)
      if let parked = pool.parked.popLast() { return .unpark(parked) }
      guard pool.workers < maximumWorkers else { return .none }
      pool.workers += 1
      return .spawnWorker
    case .stopping, .stopped:
      return .reject
    case .modifying:
      preconditionFailure("Internal inconsistency: submit in state \(state)")
    }
  }

  /// A worker asks for its next operation (`worker` is what wakes it when it parks).
  ///
  /// - Complexity: amortized O(1).
  mutating func nextWork(for worker: Worker) -> WorkerAction {
    switch state {
    case .accepting(var pool):
      state = .modifying
      defer { state = .accepting(pool) }
      if let operation = pool.popFirst() {
        pool.running.append(operation)
        return .run(operation)
      }
      pool.parked.append(worker)
      return .park
    case .stopping(let workers, let waiters):
      guard workers > 1 else {
        state = .stopped
        return .exit(resuming: waiters)
      }
      state = .stopping(workers: workers - 1, waiters: waiters)
      return .exit(resuming: [])
    case .stopped, .modifying:
      preconditionFailure(
        "Internal inconsistency: nextWork in state \(state): a worker runs that was not counted")
    }
  }

  /// A worker has finished `operation` (the one ``nextWork(for:)`` handed it).
  ///
  /// - Complexity: O(running operations).
  mutating func finished(_ operation: Operation) {
    switch state {
    case .accepting(var pool):
      state = .modifying
      defer { state = .accepting(pool) }
      guard let index = pool.running.firstIndex(where: { $0 === operation }) else {
        preconditionFailure(
          "Internal inconsistency: finished in state accepting: the operation was not running")
      }
      pool.running.remove(at: index)
    case .stopping:
      break  // The running operations were handed to the shutdown as it began.
    case .stopped, .modifying:
      preconditionFailure(
        "Internal inconsistency: finished in state \(state): no worker is left to finish it")
    }
  }

  /// Begins a shutdown, or joins the one under way; `waiter` (if any) is resumed once every
  /// worker has exited.
  mutating func shutdown(waiter: Waiter?) -> ShutdownAction {
    switch state {
    case .accepting(var pool):
      state = .modifying
      var queued: [Operation] = []
      while let operation = pool.popFirst() { queued.append(operation) }
      if pool.workers == 0 {
        state = .stopped
      } else {
        state = .stopping(workers: pool.workers, waiters: waiter.map { [$0] } ?? [])
      }
      return .begin(
        queued: queued, running: pool.running, parked: pool.parked,
        resume: pool.workers == 0 ? waiter : nil)
    case .stopping(let workers, var waiters):
      if let waiter {
        state = .modifying
        waiters.append(waiter)
        state = .stopping(workers: workers, waiters: waiters)
      }
      return .none
    case .stopped:
      return waiter.map { .resume($0) } ?? .none
    case .modifying:
      preconditionFailure("Internal inconsistency: shutdown in state \(state)")
    }
  }

  /// A worker that ``submit(_:cancelled:)`` counted could not be started.
  mutating func workerFailedToStart() -> StartFailureAction {
    switch state {
    case .accepting(var pool) where pool.workers > 0:
      state = .modifying
      defer { state = .accepting(pool) }
      pool.workers -= 1
      guard pool.workers == 0 else { return .none }
      // Without a worker nobody would take the queue: its operations fail now.
      var queued: [Operation] = []
      while let operation = pool.popFirst() { queued.append(operation) }
      return .failQueued(queued)
    case .stopping(let workers, let waiters):
      guard workers > 1 else {
        state = .stopped
        return .resume(waiters)
      }
      state = .stopping(workers: workers - 1, waiters: waiters)
      return .none
    case .accepting, .stopped, .modifying:
      preconditionFailure(
        "Internal inconsistency: workerFailedToStart in state \(state): no worker was counted")
    }
  }
}

extension WorkerPoolStateMachine.Pool {
  /// The oldest queued operation that was not completed (cancelled) meanwhile.
  ///
  /// - Complexity: amortized O(1).
  mutating func popFirst() -> Operation? {
    while queueHead < queue.count {
      let operation = queue[queueHead]
      queueHead += 1
      if queueHead == queue.count {
        queue.removeAll(keepingCapacity: true)
        queueHead = 0
      } else if queueHead >= 1024 && queueHead * 2 >= queue.count {
        queue.removeFirst(queueHead)
        queueHead = 0
      }
      if operation.isCompleted { continue }
      return operation
    }
    return nil
  }
}

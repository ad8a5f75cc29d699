import Synchronization

/// The executor a test store's effects run on: a first-in, first-out queue of jobs that runs
/// only on the test's own task: inside the test store's steps, or when the test itself resumes
/// an effect between steps.
///
/// Effects make progress only inside the test store's steps (`send`, `receive`, `finish`, …),
/// one job at a time, in the order the jobs were enqueued, and when the test's own task
/// resumes an effect between steps (below). Nothing runs concurrently with the test's code, so
/// every run of a test sees the same interleaving. Jobs run nested inside the test task's job
/// (`runSynchronously`), which the runtime supports: it saves and restores the running task and
/// executor around the nested job.
///
/// Between steps, a job that the test's own task enqueues (the task that ran the latest step)
/// runs at once, on the test's thread, inside the call that enqueued it, followed by every job
/// queued after it, until the queue is empty. That is how an effect resumed by
/// `TestClock.advance(by:)` gets to sleep again before the clock looks for the next due sleep:
/// `advance` resumes one sleep at a time and yields in between, so a timer that re-arms during
/// the advance ticks once per interval, as it does in TCA, where every task runs on the main
/// thread. There is no later moment to run it: `advance` yields to other tasks, never to the
/// test store, and returns only once the clock has reached its deadline. The cost is that the
/// caller that resumed the effect waits for it: a test that resumed an effect while holding a
/// lock that the effect takes would deadlock (`TestStore`'s documentation says so). A job
/// enqueued between steps by any other task or thread waits for the next step.
///
/// Once the test store is gone (``close()``), jobs that still arrive (an effect resumed later by
/// another thread) go to the global concurrent executor, so that no task is stranded.
final class TestExecutor: TaskExecutor {
  private let machine = Mutex(TestExecutorStateMachine())
  /// Called after each enqueued job, from the enqueueing thread; wakes a waiting test store.
  private let onEnqueue: @Sendable () -> Void

  init(onEnqueue: @escaping @Sendable () -> Void) {
    self.onEnqueue = onEnqueue
  }

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    let task = currentTaskAddress()
    switch machine.withLock({ $0.enqueue(job, from: task) }) {
    case .queued:
      onEnqueue()
    case .runHere:
      onEnqueue()
      drainHere()
    case .forwardToGlobalExecutor:
      globalConcurrentExecutor.enqueue(ExecutorJob(job))
    }
  }

  /// Runs queued jobs on the calling thread until none is left, between steps, for the owner.
  ///
  /// Jobs that the drained jobs enqueue are queued (the state machine is draining), and run
  /// here in turn: one drain at a time, first in, first out.
  private func drainHere() {
    while let job = machine.withLock({ $0.nextToDrain() }) {
      job.runSynchronously(on: asUnownedTaskExecutor())
    }
  }

  /// Runs the oldest queued job on the calling thread; returns `false` if none was queued.
  func runNext() -> Bool {
    guard let job = machine.withLock({ $0.next() }) else { return false }
    job.runSynchronously(on: asUnownedTaskExecutor())
    return true
  }

  /// Whether a job is waiting to run.
  var hasJobs: Bool { machine.withLock { $0.hasJobs } }

  /// Marks the start of a test store step, run by the current task, which becomes the owner:
  /// until the matching ``endStep()``, jobs only queue, for the step to run them in order.
  /// Steps may nest.
  func beginStep() {
    let task = currentTaskAddress()
    machine.withLock { $0.beginStep(owner: task) }
  }

  /// Marks the end of a step begun with ``beginStep()``.
  func endStep() {
    machine.withLock { $0.endStep() }
  }

  /// Hands the jobs still queued, and every later job, to the global concurrent executor.
  func close() {
    let leftovers = machine.withLock { $0.close() }
    for job in leftovers { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
  }
}

/// The queue of a ``TestExecutor``, and who may run it when, testable without running jobs.
struct TestExecutorStateMachine {
  enum EnqueueAction: Equatable {
    /// The job waits for a step (or for the drain under way) to run it.
    case queued
    /// The owner enqueued between steps: the caller runs the queue now (``nextToDrain()``).
    case runHere
    case forwardToGlobalExecutor
  }

  private var jobs: [UnownedJob] = []
  /// Index of the oldest job in `jobs` (popping from the front in O(1)).
  private var head = 0
  private var isClosed = false
  /// How many steps are under way (they nest: a step may call another).
  private var stepDepth = 0
  /// Whether a drain between steps is under way (``nextToDrain()``).
  private var isDraining = false
  /// The address of the task that ran the latest step; `nil` until the first. Only compared.
  ///
  /// If that task ended while the test store lives on (a store kept past the task that last
  /// used it) and a new task at the same address resumed an effect between steps, that task
  /// would run the queue: one job at a time, under the same exclusive drain, so the worst
  /// outcome is an interleaving the test did not choose, never two jobs at once.
  private var owner: UInt?

  /// Queues `job`, enqueued by the task at address `task` (`nil` outside any task).
  mutating func enqueue(_ job: UnownedJob, from task: UInt?) -> EnqueueAction {
    if isClosed { return .forwardToGlobalExecutor }
    jobs.append(job)
    guard stepDepth == 0, !isDraining, let task, task == owner else { return .queued }
    isDraining = true
    return .runHere
  }

  /// The next job of the drain under way; `nil`, ending the drain, once the queue is empty.
  mutating func nextToDrain() -> UnownedJob? {
    guard let job = next() else {
      isDraining = false
      return nil
    }
    return job
  }

  mutating func next() -> UnownedJob? {
    guard head < jobs.count else { return nil }
    let job = jobs[head]
    head += 1
    if head == jobs.count {
      jobs.removeAll(keepingCapacity: true)
      head = 0
    }
    return job
  }

  var hasJobs: Bool { head < jobs.count }

  mutating func beginStep(owner task: UInt?) {
    stepDepth += 1
    if let task { owner = task }
  }

  mutating func endStep() {
    guard stepDepth > 0 else {
      preconditionFailure("Internal inconsistency: a test store step ended twice")
    }
    stepDepth -= 1
  }

  /// Closes the queue; returns the jobs that were still in it, oldest first.
  mutating func close() -> [UnownedJob] {
    isClosed = true
    owner = nil
    defer {
      jobs.removeAll()
      head = 0
    }
    return Array(jobs[head...])
  }
}

/// The address of the current task, to recognize the task later; `nil` outside any task.
///
/// `UnsafeCurrentTask` is one reference to the runtime's task object, so its bit pattern is the
/// task's address. The address is only ever compared, never used to reach the task.
func currentTaskAddress() -> UInt? {
  withUnsafeCurrentTask { task in task.map { unsafeBitCast($0, to: UInt.self) } }
}

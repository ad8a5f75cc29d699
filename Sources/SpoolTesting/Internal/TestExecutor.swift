import Synchronization

/// The executor a test store's effects run on: a first-in, first-out queue of jobs that runs
/// only when the test store drains it, on the test's own thread.
///
/// Effects make progress only inside the test store's steps (`send`, `receive`, `finish`, …),
/// one job at a time, in the order the jobs were enqueued. Nothing runs concurrently with the
/// test's code, so every run of a test sees the same interleaving. Jobs run nested inside the
/// test task's job (`runSynchronously`), which the runtime supports: it saves and restores the
/// running task and executor around the nested job.
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
    switch machine.withLock({ $0.enqueue(job) }) {
    case .queued:
      onEnqueue()
    case .forwardToGlobalExecutor:
      globalConcurrentExecutor.enqueue(ExecutorJob(job))
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

  /// Hands the jobs still queued, and every later job, to the global concurrent executor.
  func close() {
    let leftovers = machine.withLock { $0.close() }
    for job in leftovers { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
  }
}

/// The queue of a ``TestExecutor``, testable without running jobs.
struct TestExecutorStateMachine {
  enum EnqueueAction: Equatable {
    case queued
    case forwardToGlobalExecutor
  }

  private var jobs: [UnownedJob] = []
  /// Index of the oldest job in `jobs` (popping from the front in O(1)).
  private var head = 0
  private var isClosed = false

  mutating func enqueue(_ job: UnownedJob) -> EnqueueAction {
    if isClosed { return .forwardToGlobalExecutor }
    jobs.append(job)
    return .queued
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

  /// Closes the queue; returns the jobs that were still in it, oldest first.
  mutating func close() -> [UnownedJob] {
    isClosed = true
    defer {
      jobs.removeAll()
      head = 0
    }
    return Array(jobs[head...])
  }
}

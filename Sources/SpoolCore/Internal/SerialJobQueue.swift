import Synchronization

/// Jobs of one serial executor, run one at a time, in the order they were enqueued, by a task
/// on Swift's cooperative pool that drains the queue.
///
/// An idle→busy transition starts one detached task, which runs the jobs nested in its own
/// (`runSynchronously`, which saves and restores the running task and executor around each
/// job) until the queue is empty. It is not meant for hot paths: SpoolIO hands it the jobs of
/// stores whose event loop has stopped, so that they stay serial after their engine shut down,
/// and ``PoolSerialExecutor`` runs stores on it in tests.
///
/// ```swift
/// let jobs = SerialJobQueue()
/// jobs.enqueue(UnownedJob(job), on: executor.asUnownedSerialExecutor())
/// ```
package final class SerialJobQueue: Sendable {
  private struct State {
    var jobs: [UnownedJob] = []
    var head = 0
    var draining = false
  }

  private let state = Mutex(State())
  private let ran = Atomic<Int>(0)

  package init() {}

  /// How many jobs it has run.
  package var jobsRun: Int { ran.load(ordering: .relaxed) }

  /// Queues `job`, to run isolated to `executor` (the executor it was enqueued on, so that the
  /// runtime sees the actor's own executor while it runs).
  package func enqueue(_ job: UnownedJob, on executor: UnownedSerialExecutor) {
    let startsDrain = state.withLock { state in
      state.jobs.append(job)
      guard !state.draining else { return false }
      state.draining = true
      return true
    }
    if startsDrain { Task.detached { self.drain(on: executor) } }
  }

  private func drain(on executor: UnownedSerialExecutor) {
    while let job = next() {
      ran.add(1, ordering: .relaxed)
      job.runSynchronously(on: executor)
    }
  }

  /// The oldest queued job, or `nil` after marking the queue idle (the next `enqueue` starts a
  /// new drain).
  private func next() -> UnownedJob? {
    state.withLock { state in
      guard state.head < state.jobs.count else {
        state.jobs.removeAll(keepingCapacity: true)
        state.head = 0
        state.draining = false
        return nil
      }
      let job = state.jobs[state.head]
      state.head += 1
      return job
    }
  }
}

/// A serial executor on Swift's cooperative pool (a ``SerialJobQueue``), for running a store on
/// an executor it was given in tests.
///
/// ```swift
/// let executor = PoolSerialExecutor()
/// let store = Store(
///   initialState: Counter.State(), options: StoreOptions(executor: executor)
/// ) {
///   Counter()
/// }
/// ```
package final class PoolSerialExecutor: SerialExecutor {
  private let jobs = SerialJobQueue()

  package init() {}

  /// How many jobs it has run.
  package var jobsRun: Int { jobs.jobsRun }

  package func enqueue(_ job: consuming ExecutorJob) {
    jobs.enqueue(UnownedJob(job), on: asUnownedSerialExecutor())
  }
}

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif
import CSpoolURing
import SpoolCore
import Synchronization

/// The io_uring backend: one ring, owned by one event-loop thread.
///
/// Tasks hand operations to the loop through a lock-protected queue
/// (``SubmissionQueueStateMachine``) and wake it with an eventfd only when it sleeps. The loop
/// prepares every queued operation, hands the whole batch to the kernel with one
/// `io_uring_enter`, and resumes the tasks whose completions arrived.
///
/// - A full submission queue is flushed to the kernel and refilled; operations that still do not
///   fit wait in `backlog`, in order. None is dropped.
/// - The ring is created with eight times as many completion entries as submission entries and
///   only on kernels with IORING_FEAT_NODROP, where the kernel holds overflowing completions
///   back instead of dropping them; the loop reaps (which flushes them) and retries when the
///   kernel answers `EBUSY`.
/// - Each in-flight operation is retained and its address is the entry's user data, so a
///   completion finds its task without a table lookup.
/// - A completion with `-EINTR` or `-EAGAIN` (the operation did not happen) is submitted again
///   unless its task was cancelled or the ring is stopping; `close` and `connect` are not
///   restartable and deliver it. The kernel normally waits for readiness itself, so these are
///   rare, and tests inject them (``SystemCalls/operationFault(_:)``).
/// - An injected error fault completes the operation without the kernel, on the loop's next turn
///   (after the cancellations that arrived meanwhile), exactly as a kernel completion would.
///
/// - A task already running on the loop thread (one that prefers ``IOEngine/taskExecutor``)
///   skips the hand-off: its operation is prepared in the submission queue at once, and the
///   task's own resumption is queued on the loop without the lock or a wake-up
///   (``RingLoop/localJobs``). The entries join the batch of the loop's next `io_uring_enter`.
/// - A store can run on the loop thread too (``RingStoreExecutor``): its jobs travel the same
///   way as task jobs, and run isolated to the store's executor. They are accepted until the
///   loop exits, also during a shutdown, so that no job of a store ever runs elsewhere while
///   the loop may still run one; what arrives later runs on the store executor's fallback.
/// - The eventfd wake-up is written under the queue's lock, and the loop closes the eventfd
///   under it as it exits: no wake-up can reach a closed (or reused) descriptor.
/// - An operation the kernel's ring lacks runs on a thread pool of the backend's own
///   (`blockingCalls`): truncation before Linux 6.9 (`IORING_OP_FTRUNCATE`), the one opcode
///   SpoolIO uses without requiring it. Never on the loop thread, which serves every store.
///
/// Budget per operation on the loop: one `prep`, a share of one `io_uring_enter`, one
/// continuation resume, and for tasks on other threads one lock round-trip to hand it over
/// (shared by the batch); no allocation.
final class RingBackend: TaskExecutor, Sendable {
  typealias Request = RingRequest

  let syscalls: SystemCalls
  private let wakeFD: Int32
  let submissionEntries: UInt32
  let inFlight = OperationCounter()
  /// `pthread_self()` of the loop thread, once it runs (0 before).
  let loopThread = Atomic<UInt>(0)
  private let queue: Mutex<SubmissionQueueStateMachine<RingRequest>>
  private let shutdownWaiters = Mutex<ShutdownState>(.running([]))
  // Everything the loop thread touches without a lock lives in `RingLoop`; this backend uses
  // it only from the loop thread (`isOnLoopThread`).
  private let loop: RingLoop
  /// Whether truncations go to the ring (`IORING_OP_FTRUNCATE`).
  let truncatesOnRing: Bool
  /// Runs the truncations when the ring does not, as blocking calls on worker threads that
  /// start with the first one; `nil` when the ring runs every operation.
  private let blockingCalls: ThreadPoolBackend?

  enum ShutdownState {
    case running([CheckedContinuation<Void, Never>])
    case finished
  }

  /// `truncateOnRing: false` truncates on threads even where the ring could, as on a kernel
  /// before Linux 6.9 (tests).
  init(entries: UInt32, syscalls: SystemCalls, truncateOnRing: Bool = true) throws(IOError) {
    self.syscalls = syscalls
    let ring = try RingHandle(entries: entries, syscalls: syscalls)
    submissionEntries = ring.submissionEntries
    truncatesOnRing = truncateOnRing && ring.supportsTruncate
    blockingCalls = truncatesOnRing ? nil : try ThreadPoolBackend(syscalls: syscalls)
    let fd = syscalls.openingBackendDescriptor("eventfd") { cspool_eventfd(0, 0) }
    guard fd >= 0 else {
      throw IOError(errno: Int32(-fd), operation: "eventfd", target: .none)
    }
    wakeFD = Int32(fd)
    queue = Mutex(SubmissionQueueStateMachine())
    let loop = RingLoop(ring: ring, wakeFD: wakeFD, syscalls: syscalls, counter: inFlight)
    self.loop = loop
    do {
      try IOThread.spawn(name: "spool-io-ring", syscalls: syscalls) { [self] in
        loop.run(backend: self)
      }
    } catch {
      syscalls.close(wakeFD, .backend)
      throw error
    }
  }

  /// Hands `operation` to the loop; its continuation is resumed when the kernel completes it.
  func submit(_ operation: IOOperation) {
    if let blockingCalls, case .ftruncate = operation.request {
      blockingCalls.submit(operation)
    } else if isOnLoopThread {
      loop.handleOnLoopThread(.submit(operation), syscalls: syscalls)
    } else {
      enqueue(.submit(operation))
    }
  }

  /// Asks the loop to cancel `operation` (before submission, or in the kernel).
  func cancel(_ operation: IOOperation) {
    if let blockingCalls, case .ftruncate = operation.request {
      blockingCalls.cancel(operation)
    } else if isOnLoopThread {
      loop.handleOnLoopThread(.cancel(operation), syscalls: syscalls)
    } else {
      enqueue(.cancel(operation))
    }
  }

  /// Whether the caller runs on the loop thread (while the loop runs: it is reset as the loop
  /// exits, so that nothing is left in the loop's own queues afterwards).
  var isOnLoopThread: Bool {
    loopThread.load(ordering: .relaxed) == UInt(pthread_self())
  }

  private func enqueue(_ request: RingRequest, untilExit: Bool = false) {
    if updateQueue({ $0.enqueue(request, untilExit: untilExit) }) == .reject {
      reject(request)
    }
  }

  /// Changes the queue's state and, when the change asks for it, wakes the loop.
  ///
  /// The wake-up is written under the lock: the loop closes the eventfd under it as it exits
  /// (after which nothing asks for a wake-up), so a write can never reach a closed descriptor,
  /// or one that a later `open` reused. It costs the lock one system call per sleep of the loop.
  private func updateQueue(
    _ change: (inout SubmissionQueueStateMachine<RingRequest>) -> SubmissionQueueStateMachine<
      RingRequest
    >.EnqueueAction
  ) -> SubmissionQueueStateMachine<RingRequest>.EnqueueAction {
    queue.withLock { state in
      let action = change(&state)
      if action == .wakeLoop { wake() }
      return action
    }
  }

  /// Carries out a request that the loop will not: it is stopping, or it has exited.
  fileprivate func reject(_ request: RingRequest) {
    switch request {
    case .submit(let operation):
      // The loop has stopped, so this task is the only owner of the operation now.
      operation.complete(result: rejectedResult(operation.request, syscalls: syscalls))
    case .job(let job):
      // The loop thread is gone: the task continues on the global executor.
      globalConcurrentExecutor.enqueue(ExecutorJob(job))
    case .serialJob(let job, let executor):
      // The loop has exited (jobs of a store are accepted until then): the store's jobs run
      // one at a time on the cooperative pool from now on.
      executor.runAfterExit(job)
    case .cancel:
      break
    }
  }

  private func wake() {
    var one: UInt64 = 1
    let result = syscalls.call("eventfd_write") { write(wakeFD, &one, 8) }
    // EAGAIN only when the counter is saturated: the loop is awake in that case anyway.
    precondition(
      result >= 0 || result == -Int(EAGAIN),
      "Internal inconsistency: the ring's eventfd refused a wake-up (\(result))")
  }

  /// Fails new operations, cancels those in flight, and returns once the loop has exited and
  /// released the ring.
  func shutdown() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let alreadyFinished = shutdownWaiters.withLock { state -> Bool in
        switch state {
        case .running(var waiters):
          waiters.append(continuation)
          state = .running(waiters)
          return false
        case .finished:
          return true
        }
      }
      if alreadyFinished {
        continuation.resume()
        return
      }
      _ = updateQueue { $0.shutdown() }
    }
    await blockingCalls?.shutdown()
  }

  /// Operations handed to the kernel, or to a worker of `blockingCalls`, and not completed.
  var operationsInFlight: Int {
    inFlight.current + (blockingCalls?.inFlight.current ?? 0)
  }

  /// Runs a task's job on the loop thread, between two `io_uring_enter` calls.
  ///
  /// This is what lets a task (a store's effect) run on the thread that completes its I/O:
  /// resuming it after a completion is an append to the loop's own queue, not a hop to
  /// another thread, and its next submission joins the batch being prepared.
  func enqueue(_ job: consuming ExecutorJob) {
    if isOnLoopThread {
      // A task resumed by a completion the loop is dispatching, or by another task of the
      // loop: the loop runs it in this turn or the next, without the lock or a wake-up.
      loop.localJobs.append(.task(UnownedJob(job)))
    } else {
      enqueue(.job(UnownedJob(job)))
    }
  }

  /// Runs a job of a store on the loop thread (`executor` is the store's, see
  /// ``RingStoreExecutor``).
  ///
  /// Accepted until the loop exits, shutdown or not: a store's jobs must never run on the pool
  /// while the loop may still run one of them. Those that arrive later (and those the loop
  /// leaves behind as it exits) run on the executor's fallback queue, still one at a time.
  func enqueue(_ job: UnownedJob, isolatedTo executor: RingStoreExecutor) {
    if isOnLoopThread {
      loop.localJobs.append(.serial(job, executor))
    } else {
      enqueue(.serialJob(job, executor), untilExit: true)
    }
  }

  /// Starts a shutdown without waiting for it (from `deinit` of the engine).
  func requestShutdown() {
    _ = updateQueue { $0.shutdown() }
    blockingCalls?.requestShutdown()
  }

  // Called by the loop thread.
  fileprivate func takeAll(into batch: inout [RingRequest]) -> Bool {
    queue.withLock { $0.takeAll(into: &batch) }
  }

  fileprivate func prepareToSleep(knowsOfShutdown: Bool) -> Bool {
    queue.withLock { $0.prepareToSleep(knowsOfShutdown: knowsOfShutdown) }
  }

  fileprivate func hasNews(knowsOfShutdown: Bool) -> Bool {
    queue.withLock { $0.hasNews(knowsOfShutdown: knowsOfShutdown) }
  }

  fileprivate func didWake() {
    queue.withLock { $0.didWake() }
  }

  fileprivate func loopDidExit() {
    // Requests that arrived after the loop's last look (jobs of stores: nothing else is accepted
    // during a shutdown) are carried out elsewhere, as all later ones are: a store's jobs on its
    // executor's fallback queue, one at a time.
    let leftovers = queue.withLock { state in
      defer { syscalls.close(wakeFD, .backend) }
      return state.exit()
    }
    for request in leftovers { reject(request) }
    let waiters = shutdownWaiters.withLock { state -> [CheckedContinuation<Void, Never>] in
      guard case .running(let waiters) = state else { return [] }
      state = .finished
      return waiters
    }
    for waiter in waiters { waiter.resume() }
  }
}

/// The result of a request submitted after shutdown: `-ECANCELED`, except that a close still
/// closes (synchronously), so that no descriptor outlives its owner.
func rejectedResult(_ request: IORequest, syscalls: SystemCalls) -> Int32 {
  guard case .close(let fd) = request else { return -ECANCELED }
  return Int32(syscalls.call("close", retryOnInterrupt: false) { close(fd) })
}

/// User data of the entries the loop submits for itself (operations use their address).
private enum Tag {
  static let ignored: UInt64 = 0
  static let wake: UInt64 = 1
}

/// What tasks send to the ring's loop.
enum RingRequest {
  case submit(IOOperation)
  case cancel(IOOperation)
  /// A task job to run on the loop thread (the backend is the tasks' `TaskExecutor`).
  case job(UnownedJob)
  /// A job of a store running on the loop thread (``RingStoreExecutor``).
  case serialJob(UnownedJob, RingStoreExecutor)
}

/// A job the loop thread runs: a task's that prefers the ring as its task executor, or one
/// isolated to a store on the ring's thread.
enum RingJob {
  case task(UnownedJob)
  case serial(UnownedJob, RingStoreExecutor)

  func run(taskExecutor: UnownedTaskExecutor) {
    switch self {
    case .task(let job): job.runSynchronously(on: taskExecutor)
    case .serial(let job, let executor):
      job.runSynchronously(on: executor.asUnownedSerialExecutor())
    }
  }
}

/// The state and work of the loop thread. Every stored property is protected by the ring
/// thread: the instance is created before the thread starts and used by it alone afterwards.
private final class RingLoop: @unchecked Sendable {
  // `@unchecked Sendable`, justified: `RingBackend.init` creates it, before the loop thread
  // starts, and keeps it in the loop thread's closure and in `RingBackend.loop`; the backend
  // calls into it only after checking that it runs on the loop thread (`isOnLoopThread`,
  // which compares `pthread_self()` with the thread id the loop stored as it started and
  // clears as it exits). So after `IOThread.spawn` only the loop thread touches its state;
  // before the spawn, only `init`'s thread did. Its mutable state is therefore never shared.
  private let ring: RingHandle
  private let wakeFD: Int32
  let syscalls: SystemCalls
  private let completions: UnsafeMutableBufferPointer<cspool_completion>
  private let wakeBuffer = IOBuffer(count: 8)
  /// Whether the loop knows of a shutdown, has cancelled everything, has its wake-up read in
  /// the kernel.
  private var phase = RingLoopStateMachine()
  private var backlog: [RingRequest] = []
  private var backlogHead = 0
  /// Operations failed by an injected fault in this turn, and in the previous one (completed
  /// after this turn's cancellations were seen). Empty unless a test injects faults.
  private var faulted: [(IOOperation, Int32)] = []
  private var faultedDue: [(IOOperation, Int32)] = []
  private var inFlight = 0
  /// Tasks resumed since the loop last considered sleeping.
  private var resumedTasks = 0
  /// Entries prepared since the last `io_uring_enter`.
  private var preparedEntries = 0
  /// Jobs of tasks resumed on the loop thread itself (by a completion, or by another task
  /// running there), run by the loop in its next round; no lock, no wake-up needed.
  var localJobs: [RingJob] = []
  private var runningJobs: [RingJob] = []
  private let counter: OperationCounter
  /// How often the loop yields its CPU, looking for new work, before it sleeps in the kernel.
  static let yieldsBeforeSleeping = 4

  init(ring: RingHandle, wakeFD: Int32, syscalls: SystemCalls, counter: OperationCounter) {
    self.counter = counter
    self.ring = ring
    self.wakeFD = wakeFD
    self.syscalls = syscalls
    completions = .allocate(capacity: Int(ring.completionEntries))
  }

  deinit {
    completions.deallocate()
  }

  func run(backend: RingBackend) {
    var batch: [RingRequest] = []
    batch.reserveCapacity(Int(ring.submissionEntries))
    backend.loopThread.store(UInt(pthread_self()), ordering: .releasing)
    let executor = backend.asUnownedTaskExecutor()
    while true {
      if backlogHead == backlog.count {
        backlog.removeAll(keepingCapacity: true)
        backlogHead = 0
      }
      // Run the jobs of tasks that prefer this thread, and collect I/O requests. Jobs submit
      // more requests as they run, so take again (a few rounds, to batch those into this
      // `io_uring_enter` without starving the completions).
      for _ in 0..<4 {
        phase.queueTaken(stopping: backend.takeAll(into: &batch))
        var ranJob = false
        for request in batch {
          switch request {
          case .job(let job):
            job.runSynchronously(on: executor)
            ranJob = true
          case .serialJob(let job, let store):
            RingJob.serial(job, store).run(taskExecutor: executor)
            ranJob = true
          case .submit, .cancel:
            backlog.append(request)
          }
        }
        batch.removeAll(keepingCapacity: true)
        if !localJobs.isEmpty {
          swap(&localJobs, &runningJobs)
          for job in runningJobs { job.run(taskExecutor: executor) }
          runningJobs.removeAll(keepingCapacity: true)
          ranJob = true
        }
        if !ranJob { break }
      }
      prepareBacklog()
      if !faulted.isEmpty || !faultedDue.isEmpty { completeFaulted() }
      if phase.shouldCancelAll(backlogDrained: backlogHead == backlog.count)
        && prepare({ cspool_prep_cancel_all($0, Tag.ignored) })
      {
        phase.cancelAllPrepared()
      }
      if phase.mayExit(idle: inFlight == 0 && localJobs.isEmpty) { break }

      var waitCount: UInt32 = 0
      if backlogHead == backlog.count && localJobs.isEmpty {
        if phase.needsWakeRead
          && prepare({
            cspool_prep_read($0, wakeFD, wakeBuffer.pointer, 8, UInt64.max, Tag.wake)
          })
        {
          phase.wakeReadPrepared()
        }
        // Tasks resumed a moment ago usually submit again within microseconds: give them the
        // CPU (two cores here) and look again, rather than sleep and make them pay for an
        // eventfd write plus a wake-up of this thread.
        // (Not when entries are prepared: entering the kernel is what those tasks wait for.)
        if resumedTasks > 0 && preparedEntries == 0 && !phase.isStopping {
          resumedTasks = 0
          var arrived = false
          for _ in 0..<Self.yieldsBeforeSleeping where !arrived {
            sched_yield()
            arrived = backend.hasNews(knowsOfShutdown: false)
          }
          if arrived { continue }
        }
        // Sleep only with a wake-up read in the kernel (or, when stopping, with nothing new to
        // expect but the completions of cancelled operations).
        if phase.maySleep && faulted.isEmpty && faultedDue.isEmpty
          && backend.prepareToSleep(knowsOfShutdown: phase.isStopping)
        {
          waitCount = 1
        }
      }
      enter(waitingFor: waitCount, backend: waitCount > 0 ? backend : nil)
    }
    ring.close()
    // From here on, tasks resumed on this thread (the shutdown's waiters) go to the queue,
    // which hands them to the global executor.
    backend.loopThread.store(0, ordering: .releasing)
    backend.loopDidExit()
  }

  /// Carries out a task's request on the loop thread itself, while the loop runs that task's
  /// job: prepares the entry at once (it joins the batch of the next `io_uring_enter`), or
  /// queues it behind the backlog to keep the order.
  func handleOnLoopThread(_ request: RingRequest, syscalls: SystemCalls) {
    if phase.isStopping, case .submit(let operation) = request {
      operation.complete(result: rejectedResult(operation.request, syscalls: syscalls))
      return
    }
    if backlogHead == backlog.count && prepareRequest(request) { return }
    backlog.append(request)
  }

  /// Prepares queued requests until the backlog is empty or the kernel pushes back.
  private func prepareBacklog() {
    while backlogHead < backlog.count {
      if prepareRequest(backlog[backlogHead]) {
        backlogHead += 1
        continue
      }
      // The submission queue is full: hand it to the kernel and collect what completed.
      let submitted = enter(waitingFor: 0)
      if submitted < 0 { return }  // EBUSY/EAGAIN: reaped; the next turn retries.
    }
  }

  /// Prepares one request; `false` when the submission queue has no room for it.
  private func prepareRequest(_ request: RingRequest) -> Bool {
    switch request {
    case .submit(let operation):
      if operation.cancelRequested {
        operation.completeCancelledBeforeStart()
        return true
      }
      var limit = Int.max
      switch syscalls.operationFault(operation.request.name) {
      case .error(let errno)?:
        operation.phase = .submitted
        inFlight += 1
        counter.increment()
        faulted.append((operation, -errno))
        return true
      case .shortTransfer(let maximum)?:
        limit = maximum
      case nil:
        break
      }
      let userData = UInt64(UInt(bitPattern: Unmanaged.passUnretained(operation).toOpaque()))
      guard
        prepare({
          prepareEntry(operation.request, ring: $0, userData: userData, limit: limit)
        })
      else {
        return false
      }
      _ = Unmanaged.passRetained(operation)  // released when its completion is reaped
      operation.phase = .submitted
      inFlight += 1
      counter.increment()
      return true
    case .job, .serialJob:
      preconditionFailure("Internal inconsistency: a job reached the I/O backlog")
    case .cancel(let operation):
      guard !operation.cancelRequested else { return true }
      switch operation.phase {
      case .created:
        // Cancelled before its submission reached the loop: the submission will see the flag.
        operation.cancelRequested = true
        return true
      case .submitted:
        let target = UInt64(UInt(bitPattern: Unmanaged.passUnretained(operation).toOpaque()))
        guard prepare({ cspool_prep_cancel($0, target, Tag.ignored) }) else { return false }
        operation.cancelRequested = true
        return true
      case .completed:
        return true
      }
    }
  }

  private func prepare(_ body: (OpaquePointer) -> Int32) -> Bool {
    let result = body(ring.pointer)
    if result == -EBUSY { return false }
    precondition(result == 0, "Internal inconsistency: cspool_prep failed with \(result)")
    preparedEntries += 1
    return true
  }

  /// Completes the operations faulted in the previous turn, then makes this turn's due.
  private func completeFaulted() {
    let due = faultedDue
    faultedDue = faulted
    faulted = []
    for (operation, result) in due {
      finish(operation, result: result)
    }
  }

  /// `limit` caps the byte count of transfers (an injected short transfer; `Int.max` otherwise).
  private func prepareEntry(
    _ request: IORequest, ring: OpaquePointer, userData: UInt64, limit: Int
  ) -> Int32 {
    switch request {
    case .nop:
      return cspool_prep_nop(ring, userData)
    case .open(let path, let flags, let mode):
      return cspool_prep_openat(ring, path.cString, flags, mode, userData)
    case .close(let fd):
      return cspool_prep_close(ring, fd, userData)
    case .read(let fd, let buffer, let count, let offset):
      return cspool_prep_read(ring, fd, buffer.pointer, length(count, limit), offset, userData)
    case .write(let fd, let buffer, let start, let count, let offset):
      return cspool_prep_write(
        ring, fd, buffer.pointer + start, length(count, limit), offset, userData)
    case .fsync(let fd):
      return cspool_prep_fsync(ring, fd, userData)
    case .fdatasync(let fd):
      return cspool_prep_fdatasync(ring, fd, userData)
    case .fallocate(let fd, let mode, let offset, let length):
      return cspool_prep_fallocate(ring, fd, mode, offset, length, userData)
    case .ftruncate(let fd, let length):
      // Only where the kernel has the opcode: `RingBackend.submit` sends it elsewhere.
      return cspool_prep_ftruncate(ring, fd, length, userData)
    case .stat(let fd, let path, let result):
      return cspool_prep_statx(ring, fd, path.cString, result.pointer, userData)
    case .rename(let from, let to):
      return cspool_prep_renameat(ring, from.cString, to.cString, userData)
    case .unlink(let path):
      return cspool_prep_unlinkat(ring, path.cString, userData)
    case .accept(let fd):
      return cspool_prep_accept(ring, fd, userData)
    case .connect(let fd, let address):
      return cspool_prep_connect(ring, fd, address.pointer, UInt32(address.count), userData)
    case .receive(let fd, let buffer, let count):
      return cspool_prep_recv(ring, fd, buffer.pointer, length(count, limit), userData)
    case .send(let fd, let buffer, let start, let count):
      return cspool_prep_send(ring, fd, buffer.pointer + start, length(count, limit), userData)
    case .timeout(let deadline, let storage):
      return cspool_prep_timeout(ring, storage.pointer, deadline, userData)
    }
  }

  /// A transfer length for an entry: never negative, never beyond 32 bits (a conversion that
  /// traps here would stop the loop thread, and every store's I/O with it).
  private func length(_ count: Int, _ limit: Int) -> UInt32 {
    UInt32(IOLimits.transferCount(min(count, limit)))
  }

  /// Submits what is prepared, waits for `waitCount` completions, and dispatches every
  /// completion available. Returns the submit result (`-EBUSY`/`-EAGAIN` when the kernel
  /// pushed back; completions were reaped either way).
  ///
  /// `sleeper` is the backend when the loop declared itself asleep: it is marked awake before
  /// any task is resumed, so that the tasks' next submissions do not pay for a needless eventfd
  /// wake-up of a loop that is running anyway.
  @discardableResult
  private func enter(waitingFor waitCount: UInt32, backend sleeper: RingBackend? = nil) -> Int32 {
    let submitted = ring.submit(waitingFor: waitCount)
    if submitted >= 0 { preparedEntries = 0 }
    if submitted < 0 && submitted != -EBUSY && submitted != -EAGAIN {
      preconditionFailure("Internal inconsistency: io_uring_enter failed with \(submitted)")
    }
    sleeper?.didWake()
    reapAll()
    return submitted
  }

  private func reapAll() {
    while true {
      let count = ring.reap(into: completions)
      for index in 0..<count {
        dispatch(completions[index])
      }
      if count < completions.count { break }
    }
    if ring.droppedCompletions != 0 {
      preconditionFailure("Internal inconsistency: the kernel dropped completions despite NODROP")
    }
  }

  private func dispatch(_ completion: cspool_completion) {
    switch completion.user_data {
    case Tag.ignored:
      break
    case Tag.wake:
      phase.wakeReadCompleted()
    default:
      let pointer = UnsafeRawPointer(bitPattern: UInt(completion.user_data))!
      let operation = Unmanaged<IOOperation>.fromOpaque(pointer).takeRetainedValue()
      finish(operation, result: completion.result)
    }
  }

  /// Resumes the task of a completed operation, or submits the operation again when the kernel
  /// reports that it did not happen (`-EINTR`, `-EAGAIN`) and nobody asked to stop it.
  private func finish(_ operation: IOOperation, result: Int32) {
    inFlight -= 1
    counter.decrement()
    if (result == -EINTR || result == -EAGAIN) && operation.request.isRestartable
      && !operation.cancelRequested && !phase.cancelAllIssued
    {
      backlog.append(.submit(operation))
      return
    }
    resumedTasks += 1
    operation.complete(result: result)
  }
}

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif
import CSpoolURing
import SpoolCore
import Synchronization

/// The fallback backend: the same operations as blocking system calls on a pool of threads.
///
/// Used where io_uring cannot be set up (ENOSYS on old kernels, EPERM from seccomp,
/// `kernel.io_uring_disabled`), or when `SPOOL_IO_BACKEND=threads` asks for it. The pool grows
/// on demand (one thread per operation that finds no idle worker, up to ``maximumWorkers``) so
/// that operations waiting on peers cannot starve the others, and keeps idle threads for reuse.
/// Each idle worker parks on its own eventfd and a submission wakes exactly one of them (a
/// shared semaphore would wake every parked thread for each operation).
///
/// Cancellation: a queued operation is removed and fails with `CancellationError`; a running
/// operation that may wait indefinitely (accept, connect, recv, send, timeout) waits in `poll`
/// on its descriptor and on its worker's eventfd, which the cancellation writes. A running file
/// operation (open, read, write, fsync, ...) is a blocking call, which a FIFO, a terminal or a
/// network file system can hold for good: the cancellation writes the eventfd and interrupts
/// the worker's call with a signal (``WorkerInterruption``), again until the worker has left
/// the operation, so the task gets `CancellationError` at once. A call the kernel does not let
/// a signal interrupt (a local disk's read) finishes, and its result is delivered.
final class ThreadPoolBackend: Sendable {
  /// Beyond this many threads, operations queue until a worker is free.
  static let maximumWorkers = 512

  let syscalls: SystemCalls
  private let state = Mutex(WorkerPoolState())
  let inFlight = OperationCounter()

  init(syscalls: SystemCalls) throws(IOError) {
    self.syscalls = syscalls
    _ = WorkerInterruption.isAvailable
  }

  func submit(_ operation: IOOperation) {
    // A refused operation's task is resumed after the lock is released (see
    // `IOOperation.Resumption`).
    let (spawn, refused) = state.withLock { state -> (Bool, IOOperation.Resumption?) in
      if state.isShuttingDown {
        let rejected = rejectedResult(operation.request, syscalls: syscalls)
        return (false, operation.finish(result: rejected))
      }
      if operation.cancelRequested {
        return (false, operation.finish(result: -ECANCELED))
      }
      operation.phase = .submitted
      state.queue.append(operation)
      if let parked = state.parked.popLast() {
        unpark(parked)
        return (false, nil)
      }
      guard state.workers < Self.maximumWorkers else { return (false, nil) }
      state.workers += 1
      return (true, nil)
    }
    refused?.resume()
    if spawn { spawnWorker() }
  }

  func cancel(_ operation: IOOperation) {
    let interrupting = state.withLock { state -> Bool in
      guard !operation.cancelRequested else { return false }
      operation.cancelRequested = true
      switch operation.phase {
      case .created, .completed:
        return false  // `submit` sees the flag / nothing left to do.
      case .submitted where operation.workerWakeFD >= 0:
        signal(operation.workerWakeFD)
        guard !operation.request.mayWaitIndefinitely, WorkerInterruption.isAvailable else {
          return false  // It waits in `poll`, which the eventfd ends.
        }
        WorkerInterruption.interrupt(operation.workerThread)
        return true
      case .submitted:
        // Queued: completed here and left in the queue, which skips it (`popFirst`). Taking it
        // out would cost O(queue length) per cancellation, O(n²) when a store shuts down with
        // n operations queued (10,000: about 20 s in a debug build).
        operation.completeCancelledBeforeStart()
        return false
      }
    }
    if interrupting { keepInterrupting(operation) }
  }

  /// Interrupts the worker running `operation` again, with growing pauses, until it has left
  /// the operation: a signal that arrives after the worker took the operation but before it
  /// entered the blocking call is spent by then, and the call would block despite it.
  private func keepInterrupting(_ operation: IOOperation) {
    Task.detached { [self] in
      var pause = Duration.milliseconds(1)
      while interruptIfRunning(operation) {
        try? await Task.sleep(for: pause)
        pause = min(pause * 2, .milliseconds(50))
      }
    }
  }

  /// Interrupts the worker running `operation`; `false` once no worker runs it.
  private func interruptIfRunning(_ operation: IOOperation) -> Bool {
    state.withLock { _ in
      guard operation.phase == .submitted, operation.workerWakeFD >= 0 else { return false }
      WorkerInterruption.interrupt(operation.workerThread)
      return true
    }
  }

  /// Fails queued operations, ends running ones with `ECANCELED`, and returns when every
  /// worker has exited and released its descriptors.
  func shutdown() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let (finished, stopped) = state.withLock { state -> (Bool, ShutdownStart) in
        let stopped = beginShutdown(&state)
        guard state.workers > 0 else { return (true, stopped) }
        state.shutdownWaiters.append(continuation)
        return (false, stopped)
      }
      carryOut(stopped)
      if finished { continuation.resume() }
    }
  }

  /// Starts a shutdown without waiting for it.
  func requestShutdown() {
    carryOut(state.withLock { beginShutdown(&$0) })
  }

  /// What a shutdown leaves to do once the lock is released: the resumptions of the queued
  /// operations it failed (see `IOOperation.Resumption`), and the running operations whose
  /// workers it interrupted, to interrupt until they leave them.
  private typealias ShutdownStart = (failed: [IOOperation.Resumption], interrupted: [IOOperation])

  private func carryOut(_ start: ShutdownStart) {
    for resumption in start.failed { resumption.resume() }
    for operation in start.interrupted { keepInterrupting(operation) }
  }

  private func beginShutdown(_ state: inout WorkerPoolState) -> ShutdownStart {
    guard !state.isShuttingDown else { return ([], []) }
    state.isShuttingDown = true
    var failed: [IOOperation.Resumption] = []
    while let operation = state.popFirst() {
      // -ECANCELED, except that a queued close still closes: no descriptor outlives its owner.
      failed.append(
        operation.finish(result: rejectedResult(operation.request, syscalls: syscalls)))
    }
    // Running operations end with ECANCELED (an IOError, as on the ring), not as cancelled
    // tasks: their tasks did not ask for it. Blocking calls are interrupted, as for a
    // cancellation, so that the shutdown does not wait for a FIFO's writer.
    var interrupted: [IOOperation] = []
    for operation in state.running where operation.workerWakeFD >= 0 {
      signal(operation.workerWakeFD)
      if !operation.request.mayWaitIndefinitely && WorkerInterruption.isAvailable {
        WorkerInterruption.interrupt(operation.workerThread)
        interrupted.append(operation)
      }
    }
    for parked in state.parked { unpark(parked) }
    state.parked = []
    return (failed, interrupted)
  }

  /// Wakes a parked worker. Called with the lock held: a parked worker cannot close its
  /// eventfd before it is woken and takes the lock, so the descriptor is still its own.
  private func unpark(_ parkFD: Int32) {
    signal(parkFD)
  }

  private func signal(_ fd: Int32) {
    var one: UInt64 = 1
    let result = syscalls.call("eventfd_write") { write(fd, &one, 8) }
    precondition(result >= 0, "Internal inconsistency: a pool eventfd refused a write")
  }

  private func spawnWorker() {
    do throws(IOError) {
      let (parkFD, cancelFD) = try makeWorkerDescriptors()
      do throws(IOError) {
        try IOThread.spawn(name: "spool-io-worker", syscalls: syscalls) { [self] in
          workerLoop(parkFD: parkFD, cancelFD: cancelFD)
        }
      } catch {
        syscalls.close(parkFD, .backend)
        syscalls.close(cancelFD, .backend)
        throw error
      }
    } catch {
      // Could not start a worker (its eventfds at the descriptor limit, its thread at the
      // thread limit): the existing workers take the queue. Without any, nobody ever would:
      // the queued operations fail now with the errno (`EMFILE`, `EAGAIN`; a close still
      // closes), rather than leave their tasks waiting forever. The next submission tries
      // again, so the pool serves again once the process has resources to spare.
      // The tasks are resumed after the lock is released (see `IOOperation.Resumption`).
      let (failed, waiters) = state.withLock {
        state -> ([IOOperation.Resumption], [CheckedContinuation<Void, Never>]) in
        state.workers -= 1
        guard state.workers == 0 else { return ([], []) }
        var failed: [IOOperation.Resumption] = []
        while let operation = state.popFirst() {
          failed.append(
            operation.finish(
              result: operation.request.isClose
                ? rejectedResult(operation.request, syscalls: syscalls) : -error.errno))
        }
        guard state.isShuttingDown else { return (failed, []) }
        defer { state.shutdownWaiters = [] }
        return (failed, state.shutdownWaiters)
      }
      for resumption in failed { resumption.resume() }
      for waiter in waiters { waiter.resume() }
    }
  }

  /// The two eventfds of a new worker, made before its thread starts so that running out of
  /// descriptors is an error of the submission, not a worker without them: `park` (blocking:
  /// the idle worker waits in `read` on it) and `cancel` (non-blocking: written to cancel the
  /// running operation, polled by ``BlockingExecutor``).
  private func makeWorkerDescriptors() throws(IOError) -> (park: Int32, cancel: Int32) {
    let parkFD = syscalls.openingBackendDescriptor("eventfd") { cspool_eventfd(0, 0) }
    guard parkFD >= 0 else {
      throw IOError(errno: -parkFD, operation: "eventfd", target: .none)
    }
    let cancelFD = syscalls.openingBackendDescriptor("eventfd") { cspool_eventfd(1, 0) }
    guard cancelFD >= 0 else {
      syscalls.close(parkFD, .backend)
      throw IOError(errno: -cancelFD, operation: "eventfd", target: .none)
    }
    return (parkFD, cancelFD)
  }

  private func workerLoop(parkFD: Int32, cancelFD: Int32) {
    WorkerInterruption.unblockOnCurrentThread()
    let thread = pthread_self()
    let executor = BlockingExecutor(syscalls: syscalls, cancelFD: cancelFD)
    while true {
      enum Next { case run(IOOperation), park, exit([CheckedContinuation<Void, Never>]) }
      let next = state.withLock { state -> Next in
        if let operation = state.popFirst() {
          operation.workerWakeFD = cancelFD
          operation.workerThread = thread
          state.running.append(operation)
          inFlight.increment()
          return .run(operation)
        }
        guard state.isShuttingDown else {
          state.parked.append(parkFD)
          return .park
        }
        // Released under the lock, so that a finished shutdown leaves no descriptor behind.
        syscalls.close(parkFD, .backend)
        syscalls.close(cancelFD, .backend)
        state.workers -= 1
        guard state.workers == 0 else { return .exit([]) }
        defer { state.shutdownWaiters = [] }
        return .exit(state.shutdownWaiters)
      }
      switch next {
      case .park:
        var count: UInt64 = 0
        _ = syscalls.call("eventfd_read") { read(parkFD, &count, 8) }
      case .exit(let waiters):
        for waiter in waiters { waiter.resume() }
        return
      case .run(let operation):
        let result = executor.execute(operation.request)
        let resumption = state.withLock { state in
          operation.workerWakeFD = -1
          state.running.removeAll { $0 === operation }
          inFlight.decrement()
          return operation.finish(result: result)
        }
        // Not under the lock: see `IOOperation.Resumption`.
        resumption.resume()
        var drained: UInt64 = 0
        _ = syscalls.call("eventfd_read") { read(cancelFD, &drained, 8) }
      }
    }
  }
}

/// The pool's queue, workers and waiters; protected by the pool's `Mutex`.
struct WorkerPoolState {
  var queue: [IOOperation] = []
  var queueHead = 0
  /// The park eventfds of idle workers, most recently parked last (woken first: warm caches).
  var parked: [Int32] = []
  var workers = 0
  var running: [IOOperation] = []
  var isShuttingDown = false
  var shutdownWaiters: [CheckedContinuation<Void, Never>] = []

  /// The oldest queued operation that was not cancelled meanwhile.
  ///
  /// - Complexity: amortized O(1).
  mutating func popFirst() -> IOOperation? {
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
      // Cancelled while queued (`ThreadPoolBackend.cancel`): already completed, skipped.
      if operation.phase == .completed { continue }
      return operation
    }
    return nil
  }
}

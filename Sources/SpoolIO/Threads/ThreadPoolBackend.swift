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
  /// The queue, workers and shutdown (`WorkerPoolStateMachine`; workers are known by their
  /// park eventfd). The fields of an operation that a worker runs are protected by this lock too.
  private let state = Mutex(WorkerPoolState(maximumWorkers: ThreadPoolBackend.maximumWorkers))
  let inFlight = OperationCounter()

  init(syscalls: SystemCalls) throws(IOError) {
    self.syscalls = syscalls
    _ = WorkerInterruption.isAvailable
  }

  func submit(_ operation: IOOperation) {
    // A refused operation's task is resumed after the lock is released (see
    // `IOOperation.Resumption`).
    let (spawn, refused) = state.withLock { state -> (Bool, IOOperation.Resumption?) in
      switch state.submit(operation, cancelled: operation.cancelRequested) {
      case .reject:
        let rejected = rejectedResult(operation.request, syscalls: syscalls)
        return (false, operation.finish(result: rejected))
      case .failCancelled:
        return (false, operation.finish(result: -ECANCELED))
      case .unpark(let parkFD):
        operation.phase = .submitted
        unpark(parkFD)
        return (false, nil)
      case .spawnWorker:
        operation.phase = .submitted
        return (true, nil)
      case .none:
        operation.phase = .submitted
        return (false, nil)
      }
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
      let stopped = state.withLock { beginShutdown(&$0, waiter: continuation) }
      carryOut(stopped)
    }
  }

  /// Starts a shutdown without waiting for it.
  func requestShutdown() {
    carryOut(state.withLock { beginShutdown(&$0, waiter: nil) })
  }

  /// What a shutdown leaves to do once the lock is released: the resumptions of the queued
  /// operations it failed (see `IOOperation.Resumption`), the running operations whose
  /// workers it interrupted, to interrupt until they leave them, and the waiter to resume when
  /// the pool has stopped.
  private typealias ShutdownStart = (
    failed: [IOOperation.Resumption], interrupted: [IOOperation],
    finished: CheckedContinuation<Void, Never>?
  )

  private func carryOut(_ start: ShutdownStart) {
    for resumption in start.failed { resumption.resume() }
    for operation in start.interrupted { keepInterrupting(operation) }
    start.finished?.resume()
  }

  /// Carries out the machine's shutdown transition with the lock held: the eventfd writes and
  /// signals must reach workers that cannot exit meanwhile (they close their descriptors under
  /// the lock); the tasks are resumed by `carryOut` after it is released.
  private func beginShutdown(
    _ state: inout WorkerPoolState, waiter: CheckedContinuation<Void, Never>?
  ) -> ShutdownStart {
    switch state.shutdown(waiter: waiter) {
    case .none:
      return ([], [], nil)
    case .resume(let waiter):
      return ([], [], waiter)
    case .begin(let queued, let running, let parked, let waiter):
      // -ECANCELED, except that a queued close still closes: no descriptor outlives its owner.
      let failed = queued.map {
        $0.finish(result: rejectedResult($0.request, syscalls: syscalls))
      }
      // Running operations end with ECANCELED (an IOError, as on the ring), not as cancelled
      // tasks: their tasks did not ask for it. Blocking calls are interrupted, as for a
      // cancellation, so that the shutdown does not wait for a FIFO's writer.
      var interrupted: [IOOperation] = []
      for operation in running where operation.workerWakeFD >= 0 {
        signal(operation.workerWakeFD)
        if !operation.request.mayWaitIndefinitely && WorkerInterruption.isAvailable {
          WorkerInterruption.interrupt(operation.workerThread)
          interrupted.append(operation)
        }
      }
      for parkFD in parked { unpark(parkFD) }
      return (failed, interrupted, waiter)
    }
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
        switch state.workerFailedToStart() {
        case .none:
          return ([], [])
        case .failQueued(let queued):
          let failed = queued.map {
            $0.finish(
              result: $0.request.isClose
                ? rejectedResult($0.request, syscalls: syscalls) : -error.errno)
          }
          return (failed, [])
        case .resume(let waiters):
          return ([], waiters)
        }
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
      let next = state.withLock { state -> WorkerPoolState.WorkerAction in
        let next = state.nextWork(for: parkFD)
        switch next {
        case .run(let operation):
          operation.workerWakeFD = cancelFD
          operation.workerThread = thread
          inFlight.increment()
        case .park:
          break
        case .exit:
          // Released under the lock, so that a finished shutdown leaves no descriptor behind,
          // and no eventfd write (which happens under it) can reach a closed descriptor.
          syscalls.close(parkFD, .backend)
          syscalls.close(cancelFD, .backend)
        }
        return next
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
          state.finished(operation)
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

/// The pool's state machine as the backend uses it: workers are known by their park eventfd.
typealias WorkerPoolState = WorkerPoolStateMachine<
  IOOperation, Int32, CheckedContinuation<Void, Never>
>

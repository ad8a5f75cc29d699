#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif
import CSpoolURing
import Spool
import Synchronization

/// The fallback backend: the same operations as blocking system calls on a pool of threads.
///
/// Used where io_uring cannot be set up (ENOSYS on old kernels, EPERM from seccomp,
/// `kernel.io_uring_disabled`), or when `SPOOL_IO_BACKEND=threads` asks for it. The pool grows
/// on demand (one thread per operation that finds no idle worker, up to ``maximumWorkers``) so
/// that operations waiting on peers cannot starve the others, and keeps idle threads for reuse.
///
/// Cancellation: a queued operation is removed and fails with `CancellationError`; a running
/// operation that may wait indefinitely (accept, connect, recv, send, timeout) waits in `poll`
/// on its descriptor and on its worker's eventfd, which the cancellation writes. A running file
/// operation is short and finishes; its result is delivered.
final class ThreadPoolBackend: Sendable {
  /// Beyond this many threads, operations queue until a worker is free.
  static let maximumWorkers = 512

  let syscalls: SystemCalls
  /// An eventfd in semaphore mode: one count per queued operation (and per worker at shutdown).
  private let workAvailableFD: Int32
  private let state = Mutex(WorkerPoolState())
  let inFlight = OperationCounter()

  init(syscalls: SystemCalls) throws(IOError) {
    self.syscalls = syscalls
    let fd = syscalls.uring("eventfd") { cspool_eventfd(0, 1) }
    guard fd >= 0 else { throw IOError(errno: Int32(-fd), operation: "eventfd", target: .none) }
    workAvailableFD = Int32(fd)
  }

  deinit {
    state.withLock { closeWorkAvailableFD(&$0) }
  }

  /// Closes the work eventfd once (when the last worker exits at shutdown, or in `deinit`);
  /// called with the lock held.
  private func closeWorkAvailableFD(_ state: inout WorkerPoolState) {
    guard !state.workAvailableFDClosed else { return }
    state.workAvailableFDClosed = true
    _ = syscalls.call("close", retryOnInterrupt: false) { close(workAvailableFD) }
  }

  func submit(_ operation: IOOperation) {
    enum Action { case spawn, none }
    let action = state.withLock { state -> Action in
      if state.isShuttingDown {
        operation.complete(result: rejectedResult(operation.request, syscalls: syscalls))
        return .none
      }
      if operation.cancelRequested {
        operation.completeCancelledBeforeStart()
        return .none
      }
      operation.phase = .submitted
      state.queue.append(operation)
      post(1, state)
      guard state.queue.count - state.queueHead > state.idleWorkers
        && state.workers < Self.maximumWorkers
      else { return .none }
      state.workers += 1
      return .spawn
    }
    if action == .spawn { spawnWorker() }
  }

  func cancel(_ operation: IOOperation) {
    state.withLock { state in
      guard !operation.cancelRequested else { return }
      operation.cancelRequested = true
      switch operation.phase {
      case .created, .completed:
        break  // `submit` sees the flag / nothing left to do.
      case .submitted where operation.workerWakeFD >= 0:
        var one: UInt64 = 1
        _ = syscalls.call("eventfd_write") { write(operation.workerWakeFD, &one, 8) }
      case .submitted:
        state.remove(operation)
        operation.completeCancelledBeforeStart()
      }
    }
  }

  /// Fails queued operations, cancels running ones, and returns when every worker has exited.
  func shutdown() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let finished = state.withLock { state -> Bool in
        beginShutdown(&state)
        if state.workers == 0 {
          closeWorkAvailableFD(&state)
          return true
        }
        state.shutdownWaiters.append(continuation)
        return false
      }
      if finished { continuation.resume() }
    }
  }

  /// Starts a shutdown without waiting for it.
  func requestShutdown() {
    state.withLock { beginShutdown(&$0) }
  }

  private func beginShutdown(_ state: inout WorkerPoolState) {
    guard !state.isShuttingDown else { return }
    state.isShuttingDown = true
    while let operation = state.popFirst() {
      operation.complete(result: -ECANCELED)
    }
    // Running operations end with ECANCELED (an IOError, as on the ring), not as cancelled
    // tasks: their tasks did not ask for it.
    for operation in state.running where operation.workerWakeFD >= 0 {
      var one: UInt64 = 1
      _ = syscalls.call("eventfd_write") { write(operation.workerWakeFD, &one, 8) }
    }
    // One count per worker, so that each wakes, sees the shutdown and exits.
    if state.workers > 0 { post(UInt64(state.workers), state) }
  }

  /// Adds `count` to the work eventfd. Called with the lock held (hence `state`), so that the
  /// descriptor cannot be closed, and its number reused, in between.
  private func post(_ count: UInt64, _ state: borrowing WorkerPoolState) {
    precondition(!state.workAvailableFDClosed, "Internal inconsistency: post after close")
    var count = count
    let result = syscalls.call("eventfd_write") { write(workAvailableFD, &count, 8) }
    precondition(result >= 0, "Internal inconsistency: the pool's eventfd refused a post")
  }

  private func spawnWorker() {
    do {
      try IOThread.spawn(name: "spool-io-worker") { [self] in workerLoop() }
    } catch {
      // Could not start a thread (resource limits): the existing workers take the queue.
      state.withLock { $0.workers -= 1 }
    }
  }

  private func workerLoop() {
    let wakeFD = syscalls.uring("eventfd") { cspool_eventfd(1, 0) }
    precondition(wakeFD >= 0, "Internal inconsistency: no eventfd for a pool worker")
    while true {
      state.withLock { $0.idleWorkers += 1 }
      var count: UInt64 = 0
      _ = syscalls.call("eventfd_read") { read(workAvailableFD, &count, 8) }
      enum Next { case run(IOOperation), idle, exit([CheckedContinuation<Void, Never>]) }
      let next = state.withLock { state -> Next in
        state.idleWorkers -= 1
        if let operation = state.popFirst() {
          operation.workerWakeFD = wakeFD
          state.running.append(operation)
          inFlight.increment()
          return .run(operation)
        }
        guard state.isShuttingDown else { return .idle }
        // Released under the lock, so that a finished shutdown leaves no descriptor behind.
        _ = syscalls.call("close", retryOnInterrupt: false) { close(wakeFD) }
        state.workers -= 1
        guard state.workers == 0 else { return .exit([]) }
        // The last worker: nothing can post any more.
        closeWorkAvailableFD(&state)
        defer { state.shutdownWaiters = [] }
        return .exit(state.shutdownWaiters)
      }
      switch next {
      case .idle:
        continue
      case .exit(let waiters):
        for waiter in waiters { waiter.resume() }
        return
      case .run(let operation):
        let result = BlockingExecutor(syscalls: syscalls, cancelFD: wakeFD)
          .execute(operation.request)
        state.withLock { state in
          operation.workerWakeFD = -1
          state.running.removeAll { $0 === operation }
          inFlight.decrement()
          operation.complete(result: syscalls.completion(operation.request.name, result))
        }
        var drained: UInt64 = 0
        _ = syscalls.call("eventfd_read") { read(wakeFD, &drained, 8) }
      }
    }
  }
}

/// The pool's queue and counters; protected by the pool's `Mutex`.
struct WorkerPoolState {
  var queue: [IOOperation] = []
  var queueHead = 0
  var idleWorkers = 0
  var workers = 0
  var running: [IOOperation] = []
  var isShuttingDown = false
  var shutdownWaiters: [CheckedContinuation<Void, Never>] = []
  var workAvailableFDClosed = false

  /// - Complexity: amortized O(1).
  mutating func popFirst() -> IOOperation? {
    guard queueHead < queue.count else { return nil }
    let operation = queue[queueHead]
    queueHead += 1
    if queueHead == queue.count {
      queue.removeAll(keepingCapacity: true)
      queueHead = 0
    } else if queueHead >= 1024 && queueHead * 2 >= queue.count {
      queue.removeFirst(queueHead)
      queueHead = 0
    }
    return operation
  }

  /// - Complexity: O(n) in the queue length; only cancellation of a queued operation uses it.
  mutating func remove(_ operation: IOOperation) {
    guard let index = queue[queueHead...].firstIndex(where: { $0 === operation }) else {
      preconditionFailure("Internal inconsistency: a queued operation is not in the queue")
    }
    queue.remove(at: index)
  }
}

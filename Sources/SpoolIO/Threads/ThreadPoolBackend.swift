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

  init(syscalls: SystemCalls) throws(IOError) {
    self.syscalls = syscalls
    let fd = syscalls.uring("eventfd") { cspool_eventfd(0, 1) }
    guard fd >= 0 else { throw IOError(errno: Int32(-fd), operation: "eventfd", target: .none) }
    workAvailableFD = Int32(fd)
  }

  deinit {
    _ = syscalls.call("close", retryOnInterrupt: false) { close(workAvailableFD) }
  }

  func submit(_ operation: IOOperation) {
    enum Action { case post(spawn: Bool), cancelled, rejected }
    let action = state.withLock { state -> Action in
      if state.isShuttingDown {
        operation.complete(result: -ECANCELED)
        return .rejected
      }
      if operation.cancelRequested {
        operation.completeCancelledBeforeStart()
        return .cancelled
      }
      operation.phase = .submitted
      state.queue.append(operation)
      let spawn = state.queue.count - state.queueHead > state.idleWorkers
        && state.workers < Self.maximumWorkers
      if spawn { state.workers += 1 }
      return .post(spawn: spawn)
    }
    guard case .post(let spawn) = action else { return }
    if spawn { spawnWorker() }
    post(1)
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
      let (workers, finished) = state.withLock { state -> (Int, Bool) in
        if state.workers == 0 {
          state.isShuttingDown = true
          return (0, true)
        }
        state.shutdownWaiters.append(continuation)
        beginShutdown(&state)
        return (state.workers, false)
      }
      if finished {
        continuation.resume()
      } else {
        post(UInt64(workers))
      }
    }
  }

  /// Starts a shutdown without waiting for it.
  func requestShutdown() {
    let workers = state.withLock { state -> Int in
      beginShutdown(&state)
      return state.workers
    }
    if workers > 0 { post(UInt64(workers)) }
  }

  private func beginShutdown(_ state: inout WorkerPoolState) {
    guard !state.isShuttingDown else { return }
    state.isShuttingDown = true
    while let operation = state.popFirst() {
      operation.complete(result: -ECANCELED)
    }
    for operation in state.running where operation.workerWakeFD >= 0 {
      operation.cancelRequested = true
      var one: UInt64 = 1
      _ = syscalls.call("eventfd_write") { write(operation.workerWakeFD, &one, 8) }
    }
  }

  private func post(_ count: UInt64) {
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
    defer { _ = syscalls.call("close", retryOnInterrupt: false) { close(wakeFD) } }
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
          return .run(operation)
        }
        guard state.isShuttingDown else { return .idle }
        state.workers -= 1
        guard state.workers == 0 else { return .exit([]) }
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

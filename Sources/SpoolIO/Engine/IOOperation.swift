#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// One in-flight request and the task waiting for it.
///
/// Lifecycle: the awaiting task stores its continuation, then hands the operation to a backend
/// (`submit`); the task's cancellation handler may hand it over a second time (`cancel`), in
/// either order. The backend resumes the continuation exactly once: ``finish(result:)`` takes it
/// (under the backend's lock, if it has one) and the returned ``Resumption`` resumes it after.
///
/// `@unchecked Sendable` is safe because every mutable field has one owner at a time:
/// `continuation` is written by the awaiting task before the hand-off and read by the backend
/// after it (the backend's queue lock orders the two); `phase`, `cancelRequested`,
/// `workerWakeFD` and `workerThread` are touched only by the backend (the ring thread, or under
/// the thread pool's lock), as noted next to each.
final class IOOperation: @unchecked Sendable {
  enum Phase {
    /// Not yet seen by the backend.
    case created
    /// Queued in or handed to the kernel / a worker.
    case submitted
    /// Resumed; nothing may touch the operation again.
    case completed
  }

  let request: IORequest

  // written before the hand-off by the awaiting task; taken by the backend when it completes
  var continuation: UnsafeContinuation<Int32, any Error>?

  // protected by the backend (ring thread or thread-pool lock)
  var phase = Phase.created

  // protected by the backend (ring thread or thread-pool lock)
  var cancelRequested = false

  // protected by the thread-pool lock: the eventfd of the worker running the operation, or -1
  var workerWakeFD: Int32 = -1

  // protected by the thread-pool lock: the thread of the worker running the operation (valid
  // while `workerWakeFD >= 0`), which a cancellation interrupts (`WorkerInterruption`)
  var workerThread = pthread_t()

  init(_ request: IORequest) {
    self.request = request
  }

  /// Resumes the awaiting task. A cancelled operation that the kernel stopped (`-ECANCELED`,
  /// or `-EINTR` / `-EAGAIN`: it did not happen) throws `CancellationError`; one that finished
  /// before the cancellation reached it delivers its result, so no data (or new descriptor) is
  /// ever lost. Without a cancellation, `-ECANCELED` is delivered as a result (the engine shut
  /// down, or the kernel cancelled the operation) and becomes an ``IOError``.
  func complete(result: Int32) {
    finish(result: result).resume()
  }

  /// Marks the operation completed and returns the resumption of its task, for a backend that
  /// must resume it only after releasing its lock (see ``Resumption``).
  func finish(result: Int32) -> Resumption {
    guard phase != .completed, let continuation else {
      preconditionFailure("Internal inconsistency: an I/O operation completed twice")
    }
    phase = .completed
    self.continuation = nil
    if cancelRequested && (result == -ECANCELED || result == -EINTR || result == -EAGAIN) {
      return Resumption(continuation: continuation, outcome: .failure(CancellationError()))
    }
    return Resumption(continuation: continuation, outcome: .success(result))
  }

  /// The resumption of a completed operation's task, taken under a backend's lock and carried
  /// out after it is released.
  ///
  /// Why: resuming a task takes that task's status lock, and `Task.cancel()` holds the same
  /// status lock while it runs the task's cancellation handler, which takes the backend's lock
  /// (`IOEngine.perform`'s `onCancel`). Resuming under the backend's lock is therefore a
  /// lock-order inversion: a thread-pool worker completing an operation and a store shutdown
  /// cancelling that operation's task deadlocked each other (`StoreShutdownStressTests`).
  struct Resumption {
    let continuation: UnsafeContinuation<Int32, any Error>
    let outcome: Result<Int32, any Error>

    func resume() { continuation.resume(with: outcome) }
  }

  /// Resumes the awaiting task with `CancellationError` without running the request.
  func completeCancelledBeforeStart() {
    guard phase != .completed, let continuation else {
      preconditionFailure("Internal inconsistency: an I/O operation completed twice")
    }
    phase = .completed
    self.continuation = nil
    continuation.resume(throwing: CancellationError())
  }
}

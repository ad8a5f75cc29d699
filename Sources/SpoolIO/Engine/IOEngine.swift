#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif
import Spool

/// Runs Spool's I/O operations without blocking Swift's cooperative threads.
///
/// An engine owns one backend: an io_uring ring driven by its own event-loop thread, or, where
/// io_uring cannot be set up, a pool of threads making the same operations as blocking calls.
/// Both give every operation the same semantics: it suspends the calling task, a cancelled task
/// cancels the operation and gets `CancellationError`, and a failure is an ``IOError``.
///
/// Most code uses the ``shared`` engine through ``IOFile``, ``TCPSocket``, ``IOClock`` or the
/// `fileIO` / `network` dependencies; tests create engines with an explicit backend.
///
/// ```swift
/// let engine = try IOEngine(backend: .automatic)
/// print("I/O backend:", engine.backend, engine.fallbackReason.map { "(\($0))" } ?? "")
/// let file = try await IOFile.open("/etc/hostname", on: engine)
/// let bytes = try await file.read(upTo: 256, at: 0)
/// try await file.close()
/// await engine.shutdown()
/// ```
public final class IOEngine: Sendable {
  enum Storage: Sendable {
    case ring(RingBackend)
    case threads(ThreadPoolBackend)
  }

  let storage: Storage

  /// The backend this engine runs on.
  public let backend: IOBackend

  /// Why an `.automatic` engine fell back to threads (`io_uring_setup(): Operation not
  /// permitted (EPERM)`), or `nil`.
  public let fallbackReason: IOError?

  /// The engine the live dependencies, ``IOFile``, ``TCPSocket`` and ``IOClock`` use by default.
  ///
  /// Created on first use with `.automatic` (so `SPOOL_IO_BACKEND=threads` forces the thread
  /// pool) and never shut down.
  ///
  /// ```swift
  /// print("Spool I/O runs on", IOEngine.shared.backend)
  /// ```
  public static let shared: IOEngine = {
    do {
      return try IOEngine(backend: .automatic)
    } catch {
      preconditionFailure("SpoolIO could not start any I/O backend: \(error)")
    }
  }()

  /// Starts an engine.
  ///
  /// - Parameters:
  ///   - backend: Which backend to use; `.automatic` honours `SPOOL_IO_BACKEND=threads`.
  ///   - ringEntries: Submission-queue entries of the ring (the kernel rounds up to a power of
  ///     two). Operations beyond it wait for room; none is dropped.
  /// - Throws: ``IOError`` when the requested backend cannot start (`.ioUring` on a kernel
  ///   without io_uring, for example).
  ///
  /// ```swift
  /// let ring = try IOEngine(backend: .ioUring, ringEntries: 64)
  /// ```
  public convenience init(
    backend: IOBackend.Preference = .automatic, ringEntries: UInt32 = 256
  ) throws(IOError) {
    try self.init(backend: backend, ringEntries: ringEntries, faultInjector: nil)
  }

  /// Starts an engine whose system calls consult `faultInjector` first (for tests).
  package init(
    backend preference: IOBackend.Preference,
    ringEntries: UInt32 = 256,
    faultInjector: (@Sendable (_ call: String) -> Int32?)?
  ) throws(IOError) {
    let syscalls = SystemCalls(faultInjector: faultInjector)
    let environment = getenv("SPOOL_IO_BACKEND").map { String(cString: $0) }
    switch preference.resolved(environment: environment) {
    case .threads:
      storage = .threads(try ThreadPoolBackend(syscalls: syscalls))
      backend = .threads
      fallbackReason = nil
    case .ioUring:
      storage = .ring(try RingBackend(entries: ringEntries, syscalls: syscalls))
      backend = .ioUring
      fallbackReason = nil
    case .automatic:
      do {
        storage = .ring(try RingBackend(entries: ringEntries, syscalls: syscalls))
        backend = .ioUring
        fallbackReason = nil
      } catch {
        storage = .threads(try ThreadPoolBackend(syscalls: syscalls))
        backend = .threads
        fallbackReason = error
      }
    }
  }

  deinit {
    switch storage {
    case .ring(let ring): ring.requestShutdown()
    case .threads(let pool): pool.requestShutdown()
    }
  }

  /// Stops the engine: operations in flight are cancelled (their tasks get
  /// `CancellationError`), later ones fail with `ECANCELED`; returns when the backend's threads
  /// have released the ring and their descriptors.
  ///
  /// ```swift
  /// let engine = try IOEngine()
  /// defer { Task { await engine.shutdown() } }
  /// ```
  public func shutdown() async {
    switch storage {
    case .ring(let ring): await ring.shutdown()
    case .threads(let pool): await pool.shutdown()
    }
  }

  /// The executor to run tasks on so that they resume on the thread that completes their I/O.
  ///
  /// On the io_uring backend this is the ring's event-loop thread: a task that prefers it
  /// submits its operations and is resumed by their completions on that one thread, without a
  /// hop to Swift's cooperative pool per operation. Keep such tasks I/O-bound; CPU-heavy work
  /// there delays every completion. On the thread backend it is the global concurrent executor.
  ///
  /// ```swift
  /// try await withTaskExecutorPreference(engine.taskExecutor) {
  ///   let file = try await IOFile.open(path, on: engine)
  ///   let header = try await file.read(upTo: 512, at: 0)
  ///   try await file.close()
  /// }
  /// ```
  public var taskExecutor: any TaskExecutor {
    switch storage {
    case .ring(let ring): ring
    case .threads: globalConcurrentExecutor
    }
  }

  /// Whether the caller runs on the ring's event-loop thread (always `false` on threads).
  package var isOnLoopThread: Bool {
    guard case .ring(let ring) = storage else { return false }
    return ring.loopThread.load(ordering: .acquiring) == UInt(pthread_self())
  }

  /// Runs `request` and returns the kernel-style result (a value, or `-errno`).
  ///
  /// - Throws: `CancellationError` when the task was cancelled and the operation was stopped.
  func perform(_ request: IORequest) async throws -> Int32 {
    let operation = IOOperation(request)
    return try await withTaskCancellationHandler {
      try await withUnsafeThrowingContinuation { continuation in
        operation.continuation = continuation
        switch storage {
        case .ring(let ring): ring.submit(operation)
        case .threads(let pool): pool.submit(operation)
        }
      }
    } onCancel: {
      switch storage {
      case .ring(let ring): ring.cancel(operation)
      case .threads(let pool): pool.cancel(operation)
      }
    }
  }

  /// Runs `request` to its end even if the task is cancelled (closing a descriptor).
  func performIgnoringCancellation(_ request: IORequest) async throws -> Int32 {
    let operation = IOOperation(request)
    return try await withUnsafeThrowingContinuation { continuation in
      operation.continuation = continuation
      switch storage {
      case .ring(let ring): ring.submit(operation)
      case .threads(let pool): pool.submit(operation)
      }
    }
  }

  /// Runs `request`; returns its non-negative result or throws an ``IOError`` for `target`.
  func run(_ request: IORequest, target: @autoclosure () -> IOError.Target) async throws -> Int {
    let result = try await perform(request)
    guard result >= 0 else {
      throw IOError(errno: -result, operation: request.name, target: target())
    }
    return Int(result)
  }

  /// Runs a system call that never blocks for long (socket setup) on the calling thread,
  /// through the engine's system-call wrapper.
  func immediate<Result: BinaryInteger>(
    _ name: String, target: @autoclosure () -> IOError.Target, _ body: () -> Result
  ) throws(IOError) -> Int {
    let result = syscalls.call(name, body)
    guard result >= 0 else {
      throw IOError(errno: Int32(-result), operation: name, target: target())
    }
    return result
  }

  /// Operations handed to the kernel (or a pool worker) and not yet completed.
  package var operationsInFlight: Int {
    switch storage {
    case .ring(let ring): ring.inFlight.current
    case .threads(let pool): pool.inFlight.current
    }
  }

  var syscalls: SystemCalls {
    switch storage {
    case .ring(let ring): ring.syscalls
    case .threads(let pool): pool.syscalls
    }
  }
}

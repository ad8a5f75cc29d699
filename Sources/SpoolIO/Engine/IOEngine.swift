#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif
import SpoolCore
import Synchronization

/// Runs Spool's I/O operations without blocking Swift's cooperative threads.
///
/// An engine owns one backend: an io_uring ring driven by its own event-loop thread, or, where
/// io_uring cannot be set up, a pool of threads making the same operations as blocking calls.
/// Both give every operation the same semantics: it suspends the calling task, a cancelled task
/// cancels the operation and gets `CancellationError`, and a failure is an `IOError`. (One
/// exception to the suspension: on io_uring, a small read that the page cache serves whole
/// returns at once, see ``IOFile/read(upTo:at:)``.)
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

  /// Whether ``IOFile/read(upTo:at:)`` first takes what the page cache holds on the calling
  /// thread (`preadv2` with `RWF_NOWAIT`) before it hands the rest to the ring.
  ///
  /// On for io_uring engines, unless turned off at creation (to measure the ring itself) or
  /// faults are injected (the fault tests exercise the ring's handling of a read).
  package let readsCachedDataInline: Bool

  /// Set as ``shutdown()`` begins: reads then go to the backend, which fails them with
  /// `ECANCELED`, instead of being served from the page cache on the calling thread.
  let isShuttingDown = Atomic<Bool>(false)

  /// Why an `.automatic` engine fell back to threads (`io_uring_setup(): Operation not
  /// permitted (EPERM)`), or `nil`.
  public let fallbackReason: IOError?

  /// Whether ``warnOnce(_:)`` has written its line.
  private static let warned = Atomic<Bool>(false)

  /// Writes `message` to standard error, once per process: a bad `SPOOL_IO_BACKEND` is named
  /// when the first engine starts, not for every engine.
  static func warnOnce(_ message: String) {
    guard !warned.exchange(true, ordering: .relaxed) else { return }
    let line = Array("spool: warning: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
  }

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
  /// With `.automatic`, an io_uring that cannot be set up (`io_uring_setup` failing with
  /// `ENOSYS` on an old kernel, `EPERM` under seccomp or `kernel.io_uring_disabled`, `ENOMEM`
  /// when the locked-memory limit is too small, or a kernel lacking a needed feature) is not an
  /// error: the engine runs on the thread backend, ``backend`` says `threads` and
  /// ``fallbackReason`` says why.
  ///
  /// - Parameters:
  ///   - backend: Which backend to use; `.automatic` honours `SPOOL_IO_BACKEND=threads`.
  ///   - ringEntries: Submission-queue entries of the ring (the kernel rounds up to a power of
  ///     two). Operations beyond it wait for room; none is dropped.
  /// - Throws: `IOError` when the requested backend cannot start (`.ioUring` on a kernel
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

  /// Starts an engine whose system calls fail with the errno `faultInjector` returns (tests).
  package convenience init(
    backend preference: IOBackend.Preference,
    ringEntries: UInt32 = 256,
    faultInjector: (@Sendable (_ call: String) -> Int32?)?
  ) throws(IOError) {
    var faults: IOFault.Injector?
    if let faultInjector {
      faults = { call in faultInjector(call).map { IOFault.error($0) } }
    }
    try self.init(backend: preference, ringEntries: ringEntries, faults: faults)
  }

  /// Starts an engine whose system calls consult `faults` first (for tests).
  ///
  /// The faults apply to this engine alone: other engines, ``shared`` among them, never see
  /// them, so a test can inject faults while other tests of the process do I/O.
  ///
  /// `inlineCachedReads: false` sends every read to the backend, even one the page cache could
  /// serve at once (see ``readsCachedDataInline``). `truncateOnRing: false` runs truncations on
  /// worker threads, as a ring does on a kernel without `IORING_OP_FTRUNCATE` (see
  /// ``truncatesOnRing``).
  package init(
    backend preference: IOBackend.Preference,
    ringEntries: UInt32 = 256,
    faults: IOFault.Injector?,
    inlineCachedReads: Bool = true,
    truncateOnRing: Bool = true
  ) throws(IOError) {
    let syscalls = SystemCalls(faultInjector: faults)
    let environment = getenv("SPOOL_IO_BACKEND").map { String(cString: $0) }
    if let problem = IOBackend.Preference.environmentProblem(environment) {
      Self.warnOnce(problem)
    }
    switch preference.resolved(environment: environment) {
    case .threads:
      storage = .threads(try ThreadPoolBackend(syscalls: syscalls))
      backend = .threads
      fallbackReason = nil
    case .ioUring:
      storage = .ring(
        try RingBackend(
          entries: ringEntries, syscalls: syscalls, truncateOnRing: truncateOnRing))
      backend = .ioUring
      fallbackReason = nil
    case .automatic:
      do {
        storage = .ring(
          try RingBackend(
            entries: ringEntries, syscalls: syscalls, truncateOnRing: truncateOnRing))
        backend = .ioUring
        fallbackReason = nil
      } catch {
        storage = .threads(try ThreadPoolBackend(syscalls: syscalls))
        backend = .threads
        fallbackReason = error
      }
    }
    readsCachedDataInline = backend == .ioUring && inlineCachedReads && faults == nil
  }

  deinit {
    switch storage {
    case .ring(let ring): ring.requestShutdown()
    case .threads(let pool): pool.requestShutdown()
    }
  }

  /// Stops the engine: operations in flight end, and later ones fail, with an `IOError`
  /// whose errno is `ECANCELED` (a task that was itself cancelled gets `CancellationError`);
  /// returns when the backend's threads have released the ring and their descriptors.
  ///
  /// ```swift
  /// let engine = try IOEngine()
  /// defer { Task { await engine.shutdown() } }
  /// ```
  public func shutdown() async {
    isShuttingDown.store(true, ordering: .relaxed)
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

  /// The serial executor to run a store on so that its reduce, its effects and their I/O share
  /// the ring's event-loop thread; `nil` on the thread backend.
  ///
  /// A store on it (``SpoolCore/Store/init(initialState:on:instrumentation:reducer:withDependencies:)``)
  /// reduces between two `io_uring_enter` calls of the loop, its effects start there and are
  /// resumed there by their completions, and their responses reach the store's queue without a
  /// thread hop. Each call returns a new executor (one per store) on the same thread; each keeps
  /// the engine alive.
  ///
  /// ```swift
  /// if let executor = engine.storeExecutor {
  ///   print("stores can run on the ring's thread:", executor)
  /// }
  /// ```
  public var storeExecutor: (any SerialExecutor)? {
    switch storage {
    case .ring(let ring): RingStoreExecutor(engine: self, backend: ring)
    case .threads: nil
    }
  }

  /// Whether ``IOFile/truncate(to:)`` runs on the ring (`IORING_OP_FTRUNCATE`, Linux 6.9):
  /// `false` on the thread backend, and on a ring whose kernel lacks the opcode, where
  /// truncations run as `ftruncate(2)` on worker threads of the engine.
  package var truncatesOnRing: Bool {
    guard case .ring(let ring) = storage else { return false }
    return ring.truncatesOnRing
  }

  /// Whether the caller runs on the ring's event-loop thread (always `false` on threads).
  package var isOnLoopThread: Bool {
    guard case .ring(let ring) = storage else { return false }
    return ring.loopThread.load(ordering: .acquiring) == UInt(pthread_self())
  }

  /// Runs `request` and returns the kernel-style result (a value, or `-errno`).
  ///
  /// How the backends' failures reach the caller, the same on both:
  /// - `EINTR`: interrupted calls are made again, and an interrupted ring operation is
  ///   submitted again. Two exceptions: `close` is not repeated (Linux has released the
  ///   descriptor whatever close reports; ``close(_:)`` treats it as success), and an
  ///   interrupted `connect` on the ring is delivered (the attempt goes on in the kernel, a
  ///   second one would fail with `EALREADY`; the thread backend waits for it instead).
  /// - `EAGAIN` never does for reads, writes, `accept`, `recv` and `send`: the thread backend
  ///   waits in `poll` until the descriptor is ready, the ring submits the operation again.
  /// - `-ECANCELED` is `CancellationError` when the task was cancelled; otherwise (the engine
  ///   shut down, or the kernel cancelled it) it is the result, which ``run(_:target:)`` turns
  ///   into an ``IOError`` with `ECANCELED`.
  /// - Everything else (`ENOMEM` among them) is the result as the kernel gave it.
  ///
  /// - Throws: `CancellationError` when the task was cancelled and the operation was stopped.
  ///
  /// The hot path (``IOFile/read(upTo:at:)``) repeats this body instead of calling it: every
  /// `async` function a task passes through costs it two executor switches, and a switch of a
  /// task that prefers a task executor takes the task's status lock (`swift_task_switch` →
  /// `getPreferredTaskExecutor`). Budget: 6 executor switches per read through the ring, 2
  /// fewer than through `read` → `run` → `perform` (count them with a uprobe on
  /// `swift_task_switch`). The gain is small, as was that of dropping the cancellation handler
  /// for a loop that polls tasks instead (3 switches; tried and not kept).
  func perform(_ request: IORequest) async throws -> Int32 {
    let operation = IOOperation(request)
    let result = try await withTaskCancellationHandler {
      try await withUnsafeThrowingContinuation { start(operation, continuation: $0) }
    } onCancel: {
      cancel(operation)
    }
    account(request, result: result)
    return result
  }

  /// Runs `request` to its end even if the task is cancelled (closing a descriptor).
  func performIgnoringCancellation(_ request: IORequest) async throws -> Int32 {
    let operation = IOOperation(request)
    let result = try await withUnsafeThrowingContinuation { start(operation, continuation: $0) }
    account(request, result: result)
    return result
  }

  /// Hands `operation` to the backend, which resumes `continuation` when it completes.
  ///
  /// The first half of ``perform(_:)``, for the callers that inline it.
  func start(_ operation: IOOperation, continuation: UnsafeContinuation<Int32, any Error>) {
    operation.continuation = continuation
    switch storage {
    case .ring(let ring): ring.submit(operation)
    case .threads(let pool): pool.submit(operation)
    }
  }

  /// Asks the backend to stop `operation` (a task's cancellation handler).
  func cancel(_ operation: IOOperation) {
    switch storage {
    case .ring(let ring): ring.cancel(operation)
    case .threads(let pool): pool.cancel(operation)
    }
  }

  /// Records the descriptors that `request` opened or closed.
  private func account(_ request: IORequest, result: Int32) {
    switch request {
    case .open, .accept:
      if result >= 0 { descriptors.opened(.resource) }
    case .close:
      descriptors.closed(.resource, result: result)
    default:
      break
    }
  }

  /// Closes a file or socket descriptor on the backend; the task's cancellation does not stop it.
  ///
  /// `EINTR` counts as success: Linux releases the descriptor before close can be interrupted.
  func close(_ fd: Int32) async throws {
    let result = try await performIgnoringCancellation(.close(fd: fd))
    if result < 0 && result != -EINTR {
      throw IOError(errno: -result, operation: "close", target: .descriptor(fd))
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

  /// Creates a socket for a caller (non-blocking, close-on-exec) and records it.
  func makeSocket(target: @autoclosure () -> IOError.Target) throws(IOError) -> Int32 {
    let fd = try immediate("socket", target: target()) {
      let type = SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue
      return socket(AF_INET, Int32(type), 0)
    }
    descriptors.opened(.resource)
    return Int32(fd)
  }

  /// Operations handed to the kernel (or a pool worker) and not yet completed.
  package var operationsInFlight: Int {
    switch storage {
    case .ring(let ring): ring.operationsInFlight
    case .threads(let pool): pool.inFlight.current
    }
  }

  /// Files and sockets this engine opened (`open`, `socket`, `accept`) and not closed yet.
  ///
  /// Tests expect it back at its earlier value after a scenario: unlike a count of the
  /// process's descriptors it is not disturbed by other tests running at the same time.
  package var openResourceDescriptors: Int { syscalls.descriptors.openResources }

  /// The engine's own descriptors (the ring, eventfds) not closed yet: 0 after ``shutdown()``.
  package var openBackendDescriptors: Int { syscalls.descriptors.openBackendDescriptors }

  var descriptors: DescriptorLedger { syscalls.descriptors }

  var syscalls: SystemCalls {
    switch storage {
    case .ring(let ring): ring.syscalls
    case .threads(let pool): pool.syscalls
    }
  }
}

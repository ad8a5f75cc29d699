#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The one wrapper every system call and liburing call of SpoolIO goes through.
///
/// It captures `errno` right after the call, retries `EINTR` where the call is restartable,
/// counts the descriptors the engine opens and closes (``DescriptorLedger``), and is the single
/// place where tests inject faults (``IOFault``).
///
/// Results follow the kernel's convention: a non-negative value on success, `-errno` on failure.
///
/// What goes through it: every libc call of the engine, its backends, ``IOFile`` and
/// ``TCPSocket``; on the ring, `io_uring_setup`, `io_uring_enter` and the submission of every
/// operation (``operationFault(_:)``, where a fault becomes the operation's completion). Not
/// through it: the `cspool_prep_*` and reap calls, which only read and write the queues mapped
/// in memory (no system call, no errno), `clock_gettime` and `sched_yield`, which cannot fail,
/// and the blocking baselines of `IOBenchmarks`, which measure raw calls on purpose.
///
/// Fault injection costs production one predictable branch per call: the injector is an
/// optional closure fixed when the engine starts, `nil` except in engines that tests create with
/// one. It is compiled into release builds too (rather than only into debug builds), so that the
/// code tested is the code shipped and release-mode tests can inject faults. It must stay lost
/// in the noise: `IOBenchmarksRun.faultInjectionPointCost` (64 tasks of no-op operations on the
/// ring, with no injector and with one called on every call) tells the two apart by no more
/// than their runs differ, so the branch that is not taken costs nothing visible. Faults are
/// scoped to the engine they were given to, so tests that inject them run in parallel with
/// tests that use ``IOEngine/shared``.
struct SystemCalls: Sendable {
  let faultInjector: IOFault.Injector?
  /// The descriptors this engine opened and has not closed yet.
  let descriptors: DescriptorLedger

  init(faultInjector: IOFault.Injector? = nil, descriptors: DescriptorLedger = .init()) {
    self.faultInjector = faultInjector
    self.descriptors = descriptors
  }

  /// Runs a libc call that returns -1 and sets `errno` on failure.
  ///
  /// `EINTR` is retried unless `retryOnInterrupt` is `false` (`close`: on Linux the descriptor
  /// is released even when close reports EINTR, so a retry could close a reused number).
  @inline(__always)
  func call<Result: BinaryInteger>(
    _ name: String, retryOnInterrupt: Bool = true, _ body: () -> Result
  ) -> Int {
    while true {
      let result: Int
      if let faultInjector, case .error(let errno)? = faultInjector(name) {
        result = -Int(errno)
      } else {
        let value = body()
        result = value < 0 ? -Int(Glibc.errno) : Int(value)
      }
      if result == -Int(EINTR) && retryOnInterrupt { continue }
      return result
    }
  }

  /// Runs a data transfer (`read`, `write`, `recv`, `send`) of up to `count` bytes: `body` gets
  /// the count to ask for, which an injected ``IOFault/shortTransfer(maximum:)`` lowers.
  /// Returns the count transferred or `-errno`; `EINTR` is retried unless `retryOnInterrupt`
  /// is `false` (a pool worker that may have been interrupted to cancel the transfer).
  @inline(__always)
  func transfer<Result: BinaryInteger>(
    _ name: String, count: Int, retryOnInterrupt: Bool = true, _ body: (_ count: Int) -> Result
  ) -> Int {
    while true {
      var limit = count
      var result: Int?
      if let faultInjector {
        switch faultInjector(name) {
        case .error(let errno)?: result = -Int(errno)
        case .shortTransfer(let maximum)?: limit = min(count, maximum)
        case nil: break
        }
      }
      if result == nil {
        let value = body(limit)
        result = value < 0 ? -Int(Glibc.errno) : Int(value)
      }
      if result == -Int(EINTR) && retryOnInterrupt { continue }
      return result!
    }
  }

  /// Runs a call that returns `-errno` itself (the `cspool_` functions over liburing).
  @inline(__always)
  func uring(_ name: String, retryOnInterrupt: Bool = true, _ body: () -> Int32) -> Int32 {
    while true {
      let result: Int32
      if let faultInjector, case .error(let errno)? = faultInjector(name) {
        result = -errno
      } else {
        result = body()
      }
      if result == -EINTR && retryOnInterrupt { continue }
      return result
    }
  }

  /// The fault to apply to a ring operation as the loop submits it, or `nil` (always `nil`
  /// without an injector). An ``IOFault/error(_:)`` becomes the operation's completion, as if
  /// the kernel had failed it; a short transfer lowers the byte count submitted.
  @inline(__always)
  func operationFault(_ name: String) -> IOFault? {
    guard let faultInjector else { return nil }
    return faultInjector(name)
  }

  /// Runs a call that creates one of the backend's own descriptors (an eventfd) and records it.
  @inline(__always)
  func openingBackendDescriptor(_ name: String, _ body: () -> Int32) -> Int32 {
    let result = uring(name, body)
    if result >= 0 { descriptors.opened(.backend) }
    return result
  }

  /// Closes `fd` now (blocking) and records it as `kind`; never retried (see
  /// ``call(_:retryOnInterrupt:_:)``).
  @discardableResult
  func close(_ fd: Int32, _ kind: DescriptorLedger.Kind) -> Int32 {
    let result = Int32(call("close", retryOnInterrupt: false) { Glibc.close(fd) })
    descriptors.closed(kind, result: result)
    return result
  }
}

/// A failure that tests inject into an engine's system calls (see ``SystemCalls``).
///
/// ```swift
/// let engine = try IOEngine(backend: .threads, ringEntries: 64, faults: { call in
///   call == "read" ? .shortTransfer(maximum: 1) : nil
/// })
/// ```
package enum IOFault: Sendable, Hashable {
  /// The call fails with this errno without running (on the ring: the operation completes with
  /// `-errno` without reaching the kernel).
  case error(Int32)
  /// A `read`, `write`, `recv` or `send` transfers at most this many bytes (ignored by other
  /// calls), as the kernel may when a signal arrives, a socket buffer is full, or a disk fills.
  case shortTransfer(maximum: Int)

  /// Decides, for each call by name (`"read"`, `"io_uring_setup"`, `"io_uring_enter"`,
  /// `"accept"`, ...), whether to inject a fault. Called on the engine's threads: it must be
  /// quick and must not call into the engine.
  package typealias Injector = @Sendable (_ call: String) -> IOFault?
}

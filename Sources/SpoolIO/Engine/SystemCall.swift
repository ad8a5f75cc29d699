#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The one wrapper every system call and liburing call of SpoolIO goes through.
///
/// It captures `errno` right after the call, retries `EINTR` where the call is restartable, and
/// is the single place where tests inject faults: an engine built with a `faultInjector` asks it
/// before every call (and before handing every ring completion back) whether to fail with an
/// errno instead.
///
/// Results follow the kernel's convention: a non-negative value on success, `-errno` on failure.
struct SystemCalls: Sendable {
  /// Returns an errno to fail the named call with, or `nil` to let it run.
  typealias FaultInjector = @Sendable (_ call: String) -> Int32?

  let faultInjector: FaultInjector?

  init(faultInjector: FaultInjector? = nil) {
    self.faultInjector = faultInjector
  }

  /// Runs a libc call that returns -1 and sets `errno` on failure.
  @inline(__always)
  func call<Result: BinaryInteger>(
    _ name: String, retryOnInterrupt: Bool = true, _ body: () -> Result
  ) -> Int {
    while true {
      let result: Int
      if let errno = faultInjector?(name) {
        result = -Int(errno)
      } else {
        let value = body()
        result = value < 0 ? -Int(Glibc.errno) : Int(value)
      }
      if result == -Int(EINTR) && retryOnInterrupt { continue }
      return result
    }
  }

  /// Runs a liburing call that returns `-errno` itself.
  @inline(__always)
  func uring(_ name: String, retryOnInterrupt: Bool = true, _ body: () -> Int32) -> Int32 {
    while true {
      let result = faultInjector?(name).map { -$0 } ?? body()
      if result == -EINTR && retryOnInterrupt { continue }
      return result
    }
  }

  /// Passes the result of an operation the kernel ran for the ring through the fault point.
  @inline(__always)
  func completion(_ name: String, _ result: Int32) -> Int32 {
    guard let faultInjector, let errno = faultInjector(name) else { return result }
    return -errno
  }
}

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The time source of Spool's instrumentation: nanoseconds on `CLOCK_MONOTONIC`.
///
/// One call costs one `clock_gettime` (about 26 ns on the reference machine, served by the
/// vDSO, no system call). Stores read it at most once per action when instrumented and never
/// when not.
///
/// ```swift
/// let start = SpoolTime.now()
/// doWork()
/// let elapsedNanoseconds = SpoolTime.now() - start
/// ```
public enum SpoolTime {
  /// The current monotonic time in nanoseconds.
  @inlinable
  public static func now() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
  }
}

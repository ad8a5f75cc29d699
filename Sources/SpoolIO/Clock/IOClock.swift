#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif
import SpoolCore

/// A `Clock` whose `sleep` is a timeout on an ``IOEngine`` (an io_uring `IORING_OP_TIMEOUT`
/// on the ring backend), measured on `CLOCK_MONOTONIC`.
///
/// Use it as a store's clock dependency, so that effects that wait do not hold a thread:
///
/// ```swift
/// let store = withDependencies {
///   $0.continuousClock = IOClock()
/// } operation: {
///   Store(initialState: Poller.State()) { Poller() }
/// }
/// ```
///
/// A cancelled sleep throws `CancellationError`, as `Clock.sleep` requires.
public struct IOClock: Clock, Sendable {
  /// A point on `CLOCK_MONOTONIC`.
  public struct Instant: InstantProtocol, Sendable, Hashable, Comparable {
    /// Nanoseconds since an unspecified point (the boot, on Linux).
    public var nanoseconds: Int64

    public func advanced(by duration: Duration) -> Instant {
      Instant(nanoseconds: nanoseconds &+ duration.nanosecondsClamped)
    }

    public func duration(to other: Instant) -> Duration {
      .nanoseconds(other.nanoseconds &- nanoseconds)
    }

    public static func < (lhs: Instant, rhs: Instant) -> Bool {
      lhs.nanoseconds < rhs.nanoseconds
    }
  }

  let engine: IOEngine

  /// A clock whose sleeps run on `engine`.
  ///
  /// ```swift
  /// let clock = IOClock(engine: try IOEngine(backend: .threads))
  /// ```
  public init(engine: IOEngine = .shared) {
    self.engine = engine
  }

  public var now: Instant { Instant(nanoseconds: MonotonicTime.nanoseconds()) }

  /// Timeouts are armed with nanosecond resolution; the kernel's timer slack applies.
  public var minimumResolution: Duration { .nanoseconds(1) }

  /// Suspends until `deadline`, without holding a thread.
  ///
  /// ```swift
  /// let clock = IOClock()
  /// try await clock.sleep(until: clock.now.advanced(by: .milliseconds(10)))
  /// ```
  public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
    try Task.checkCancellation()
    let result = try await engine.perform(
      // A deadline before the clock's origin has passed, as any past one: clamped, so that
      // the ring (which refuses a negative timespec) and the thread pool agree.
      .timeout(deadline: max(deadline.nanoseconds, 0), storage: IOBuffer(count: 16)))
    // -ETIME: the deadline passed (the expected end); 0 cannot happen for a plain timeout.
    if result < 0 && result != -ETIME {
      throw IOError(errno: -result, operation: "timeout", target: .none)
    }
  }
}

extension Duration {
  var nanosecondsClamped: Int64 {
    let (seconds, attoseconds) = components
    let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
    if overflow { return seconds < 0 ? .min : .max }
    return scaled &+ attoseconds / 1_000_000_000
  }
}

import SpoolCore
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Signpost-style timing that any code can use: named intervals and point events with
/// nanosecond timestamps, kept in a bounded ring for the trace view.
///
/// Off by default: then `begin`, `end`, `event` and `withInterval` cost one relaxed atomic load
/// and one branch. On, recording an interval takes two clock reads and one lock, and allocates
/// nothing (names are `StaticString`s, the ring is preallocated); the ring keeps the most recent
/// `capacity` records.
///
/// ```swift
/// Signposter.shared.isEnabled = true
/// let rows = Signposter.shared.withInterval("parse") { parse(bytes) }
/// let interval = Signposter.shared.begin("flush")
/// flush()
/// Signposter.shared.end(interval)
/// Signposter.shared.event("checkpoint")
/// let trace = Signposter.shared.intervals()
/// ```
public final class Signposter: Sendable {
  /// The process-wide signposter, with room for 16 384 records.
  public static let shared = Signposter(capacity: 16_384)

  // Read on every call; relaxed ordering is enough because records carry their own timestamps
  // and the ring has its own lock.
  @usableFromInline let enabled = Atomic<Bool>(false)
  // The recorded intervals and events; protected by its mutex.
  private let ring: Mutex<SignpostRing>

  /// Creates a disabled signposter keeping the last `capacity` records.
  ///
  /// ```swift
  /// let signposter = Signposter(capacity: 1_024)
  /// ```
  public init(capacity: Int) {
    ring = Mutex(SignpostRing(capacity: capacity))
  }

  /// Whether intervals and events are recorded.
  public var isEnabled: Bool {
    get { enabled.load(ordering: .relaxed) }
    set { enabled.store(newValue, ordering: .relaxed) }
  }

  /// Starts an interval named `name`; pass the result to ``end(_:)``.
  ///
  /// When the signposter is disabled the interval is inert and `end` records nothing.
  ///
  /// ```swift
  /// let interval = Signposter.shared.begin("write batch")
  /// try writeBatch()
  /// Signposter.shared.end(interval)
  /// ```
  @inlinable
  public func begin(_ name: StaticString) -> SignpostInterval {
    guard enabled.load(ordering: .relaxed) else {
      return SignpostInterval(name: name, startNanoseconds: 0)
    }
    return SignpostInterval(name: name, startNanoseconds: SpoolTime.now())
  }

  /// Ends an interval that ``begin(_:)`` started, recording it.
  ///
  /// ```swift
  /// Signposter.shared.end(interval)
  /// ```
  @inlinable
  public func end(_ interval: SignpostInterval) {
    guard interval.startNanoseconds != 0 else { return }
    record(interval.name, start: interval.startNanoseconds, end: SpoolTime.now(), kind: .interval)
  }

  /// Records a point event named `name`.
  ///
  /// ```swift
  /// Signposter.shared.event("cache miss")
  /// ```
  @inlinable
  public func event(_ name: StaticString) {
    guard enabled.load(ordering: .relaxed) else { return }
    let now = SpoolTime.now()
    record(name, start: now, end: now, kind: .event)
  }

  /// Runs `body` inside an interval named `name`; the interval ends even when `body` throws.
  ///
  /// ```swift
  /// let total = Signposter.shared.withInterval("sum") { values.reduce(0, +) }
  /// ```
  @inlinable
  public func withInterval<Result, Failure: Error>(
    _ name: StaticString, _ body: () throws(Failure) -> Result
  ) throws(Failure) -> Result {
    let interval = begin(name)
    defer { end(interval) }
    return try body()
  }

  /// Runs async `body` inside an interval named `name`; the interval ends even when `body`
  /// throws.
  ///
  /// ```swift
  /// let page = try await Signposter.shared.withInterval("fetch") { try await fetch(url) }
  /// ```
  @inlinable
  public func withInterval<Result, Failure: Error>(
    _ name: StaticString,
    isolation: isolated (any Actor)? = #isolation,
    _ body: () async throws(Failure) -> Result
  ) async throws(Failure) -> Result {
    let interval = begin(name)
    defer { end(interval) }
    return try await body()
  }

  /// The recorded intervals and events, oldest first, as trace intervals whose track is the
  /// recording thread (`thread 1`, `thread 2`, … in order of first appearance).
  ///
  /// ```swift
  /// let trace = Signposter.shared.intervals()
  /// ```
  public func intervals() -> [TraceInterval] {
    ring.withLock { $0.intervals() }
  }

  /// Forgets every record.
  ///
  /// ```swift
  /// Signposter.shared.removeAll()
  /// ```
  public func removeAll() {
    ring.withLock { $0 = SignpostRing(capacity: $0.capacity) }
  }

  /// Budget: one lock, one `pthread_self`, one ring write; no allocation.
  @usableFromInline
  func record(_ name: StaticString, start: UInt64, end: UInt64, kind: TraceInterval.Kind) {
    let thread = UInt(bitPattern: Int(bitPattern: UInt(pthread_self())))
    ring.withLock {
      $0.append(SignpostRing.Record(name: name, thread: thread, start: start, end: end, kind: kind))
    }
  }

  /// Records a record named `label`, a name made at run time (``Reducer/signpost(_:into:)``'s
  /// action cases).
  ///
  /// Budget: as ``record(_:start:end:kind:)``, plus a retain of `label`; no allocation when
  /// `label` is a string the caller keeps.
  func record(label: String, start: UInt64, end: UInt64, kind: TraceInterval.Kind) {
    let thread = UInt(bitPattern: Int(bitPattern: UInt(pthread_self())))
    ring.withLock {
      $0.append(
        SignpostRing.Record(
          name: "", label: label, thread: thread, start: start, end: end, kind: kind))
    }
  }
}

/// An interval that ``Signposter/begin(_:)`` started; pass it to ``Signposter/end(_:)``.
///
/// ```swift
/// let interval = Signposter.shared.begin("compact")
/// Signposter.shared.end(interval)
/// ```
public struct SignpostInterval: Sendable {
  /// The interval's name.
  public let name: StaticString
  /// When it began; 0 when the signposter was disabled.
  public let startNanoseconds: UInt64

  @usableFromInline
  init(name: StaticString, startNanoseconds: UInt64) {
    self.name = name
    self.startNanoseconds = startNanoseconds
  }
}

import SpoolCore
import SpoolProfiling
import Synchronization
import Tracing

/// Reports each effect a store runs as a swift-distributed-tracing span.
///
/// One span per effect task, from the effect's start to its end, named after the action case
/// that started it (`load`, or `child(.row(.load))` for a nested case; payloads never appear),
/// with the attribute `spool.effect.outcome` (`finished`, `cancelled` or `failed`), the
/// attribute `spool.store` when a store label was given, and the status `.error` when the effect
/// failed. A cancelled effect is not an error.
///
/// The span is opened when the effect ends, with the start instant the store recorded, and
/// ended at once: the protocol hands ``effectEnded(by:startedAt:endedAt:outcome:)`` both
/// instants, so no span stays open between two calls and nothing has to pair the effects of one
/// case that overlap. What this gives up: a tracer sees an effect only once it has ended (an
/// effect that runs for the store's lifetime appears when the store cancels it), and the span
/// cannot be the parent of spans its effect opened. Its parent is the context current where the
/// effect ends, in the effect's own task.
///
/// Store times are `CLOCK_MONOTONIC`; spans take wall-clock instants. The offset between the
/// two is measured once, at ``init(store:tracer:)``, so a wall-clock step after that (an NTP
/// correction) shifts the spans by as much.
///
/// Per effect: one lock and a case lookup, then what the tracer's span costs. Nothing per
/// action.
///
/// ```swift
/// InstrumentationSystem.bootstrap(tracer)  // the server's tracer, e.g. swift-otel's
/// let store = Store(
///   initialState: Checkout.State(),
///   instrumentation: TracingInstrumentation<Checkout.Action>(store: "checkout")
/// ) {
///   Checkout()
/// }
/// ```
public final class TracingInstrumentation<Action: Sendable>: StoreInstrumentation {
  /// The span attribute that carries an effect's outcome.
  public static var outcomeAttribute: String { "spool.effect.outcome" }
  /// The span attribute that carries the store label.
  public static var storeAttribute: String { "spool.store" }

  // Names action cases; the lock makes `effectEnded` (any thread) safe against itself.
  private let table: Mutex<ActionCaseTable>
  private let tracer: any Tracer
  private let store: String?
  // Wall-clock nanoseconds since the epoch minus `SpoolTime.now()`, modulo 2^64.
  private let wallClockOffset: UInt64

  /// Creates an instrumentation that opens its spans with `tracer`.
  ///
  /// - Parameters:
  ///   - store: The value of the `spool.store` attribute of every span, or `nil` for none.
  ///   - tracer: The tracer. By default, the one `InstrumentationSystem.bootstrap(_:)`
  ///     installed before this call (a no-op tracer if none was).
  ///
  /// ```swift
  /// let tracing = TracingInstrumentation<Checkout.Action>(store: "checkout")
  /// ```
  public init(store: String? = nil, tracer: any Tracer = InstrumentationSystem.tracer) {
    self.table = Mutex(
      ActionCaseTable(
        actionType: Action.self, size: MemoryLayout<Action>.size,
        alignment: MemoryLayout<Action>.alignment))
    self.tracer = tracer
    self.store = store
    self.wallClockOffset = DefaultTracerClock.now.nanosecondsSinceEpoch &- SpoolTime.now()
  }

  /// Does nothing: spans are per effect.
  ///
  /// ```swift
  /// tracing.actionReduced(.tap, enqueuedAt: 100, startedAt: 150, endedAt: 190)
  /// ```
  public func actionReduced(
    _ action: Action, enqueuedAt: UInt64, startedAt: UInt64, endedAt: UInt64
  ) {}

  /// Does nothing: the span is opened at the effect's end, with this start instant.
  ///
  /// ```swift
  /// tracing.effectStarted(by: .load, at: 200)
  /// ```
  public func effectStarted(by action: Action, at time: UInt64) {}

  /// Reports the effect's span, from `startedAt` to `endedAt`. Called from the effect's task.
  ///
  /// ```swift
  /// tracing.effectEnded(by: .load, startedAt: 200, endedAt: 5_200, outcome: .finished)
  /// ```
  public func effectEnded(
    by action: Action, startedAt: UInt64, endedAt: UInt64, outcome: EffectOutcome
  ) {
    let name = withUnsafeBytes(of: action) { bytes in
      let address = ActionAddress(bytes: bytes, alignment: MemoryLayout<Action>.alignment)
      return table.withLock { table in
        let slot = table.slot(ofValueAt: address.pointer)
        return table.labels[slot]
      }
    }
    let span = tracer.startSpan(
      name, context: InstrumentationContext.current ?? .topLevel, ofKind: .internal,
      at: instant(startedAt))
    span.attributes[Self.outcomeAttribute] = outcome.rawValue
    if let store { span.attributes[Self.storeAttribute] = store }
    if outcome == .failed { span.setStatus(SpanStatus(code: .error)) }
    span.end(at: instant(endedAt))
  }

  private func instant(_ time: UInt64) -> DefaultTracerClock.Timestamp {
    DefaultTracerClock.Timestamp(nanosecondsSinceEpoch: time &+ wallClockOffset)
  }
}

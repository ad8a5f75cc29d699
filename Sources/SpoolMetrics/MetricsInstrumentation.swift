import Metrics
import SpoolCore
import SpoolProfiling
import Synchronization

/// Reports a store's action latencies and effects to swift-metrics.
///
/// Give it to a store as its instrumentation (or combine it with a `LatencyRecorder` through
/// ``CombinedInstrumentation``). It reports, with the dimensions `store` (the label given to
/// ``init(store:factory:)``) and `action` (the action case, nested cases flattened as
/// `child(.row(.toggle))`; payloads never appear):
///
/// - per action case, a `Timer` of queue wait (``StoreMetricLabels/queueWait``: from `send` or
///   `enqueue` to the start of the reduce) and one of reduce time
///   (``StoreMetricLabels/reduce``);
/// - per action case that started effects, a `Counter` of the effects that ended, with an
///   `outcome` dimension (``StoreMetricLabels/effects``);
/// - per store, a `Meter` of the effects running now (``StoreMetricLabels/runningEffects``),
///   which returns to 0 when `finish()` returns.
///
/// Metric objects are created once per case, the first time the case is seen, and cached.
/// Budget per action after that: one lock, a case lookup that reads the enum tag through the
/// value witness table and never formats a string, a retain and release of the case's timers,
/// and two `recordNanoseconds` calls, whose cost is the backend's; no allocation of ours. Per
/// effect: a meter increment at its start (no lock of ours); a lookup, a counter increment and
/// a meter decrement at its end. <doc:SpoolMetrics> gives the measured cost.
///
/// One instrumentation may observe several stores of the same action type; their figures add
/// up under the one `store` label.
///
/// ```swift
/// MetricsSystem.bootstrap(PrometheusMetricsFactory())
/// let store = Store(
///   initialState: Checkout.State(),
///   instrumentation: MetricsInstrumentation<Checkout.Action>(store: "checkout")
/// ) {
///   Checkout()
/// }
/// ```
public final class MetricsInstrumentation<Action: Sendable>: StoreInstrumentation {
  // The case table and the cached metric objects; the lock makes `effectEnded` (any thread)
  // safe against the store's executor.
  private let state: Mutex<MetricsState>
  // Thread-safe by the backend's contract; touched without the lock.
  private let runningEffects: Meter

  /// Creates an instrumentation that reports under the store label `store`.
  ///
  /// - Parameters:
  ///   - store: The value of the `store` dimension of every metric.
  ///   - factory: The backend. By default, the one `MetricsSystem.bootstrap(_:)` installed
  ///     before this call; a test passes its own `TestMetrics`.
  ///
  /// ```swift
  /// let metrics = MetricsInstrumentation<Checkout.Action>(store: "checkout")
  /// ```
  public init(store: String, factory: any MetricsFactory = MetricsSystem.factory) {
    self.state = Mutex(
      MetricsState(
        actionType: Action.self, size: MemoryLayout<Action>.size,
        alignment: MemoryLayout<Action>.alignment, store: store, factory: factory))
    self.runningEffects = Meter(
      label: StoreMetricLabels.runningEffects, dimensions: [(StoreMetricLabels.store, store)],
      factory: factory)
  }

  /// Records an action's queue wait and reduce time. Called by the store.
  ///
  /// ```swift
  /// metrics.actionReduced(.tap, enqueuedAt: 100, startedAt: 150, endedAt: 190)
  /// ```
  public func actionReduced(
    _ action: Action, enqueuedAt: UInt64, startedAt: UInt64, endedAt: UInt64
  ) {
    let metrics = withUnsafeBytes(of: action) { bytes in
      let address = ActionAddress(bytes: bytes, alignment: MemoryLayout<Action>.alignment)
      return state.withLock { $0.actionMetrics(forValueAt: address) }
    }
    metrics.queueWait.recordNanoseconds(Self.nanoseconds(from: enqueuedAt, to: startedAt))
    metrics.reduce.recordNanoseconds(Self.nanoseconds(from: startedAt, to: endedAt))
  }

  /// Counts an effect as running. Called by the store.
  ///
  /// ```swift
  /// metrics.effectStarted(by: .load, at: 200)
  /// ```
  public func effectStarted(by action: Action, at time: UInt64) {
    runningEffects.increment()
  }

  /// Counts an effect's outcome and stops counting it as running. Called from the effect's
  /// task, on any thread.
  ///
  /// ```swift
  /// metrics.effectEnded(by: .load, startedAt: 200, endedAt: 5_200, outcome: .finished)
  /// ```
  public func effectEnded(
    by action: Action, startedAt: UInt64, endedAt: UInt64, outcome: EffectOutcome
  ) {
    let metrics = withUnsafeBytes(of: action) { bytes in
      let address = ActionAddress(bytes: bytes, alignment: MemoryLayout<Action>.alignment)
      return state.withLock { $0.effectMetrics(forValueAt: address) }
    }
    metrics.counter(for: outcome).increment()
    runningEffects.decrement()
  }

  /// The nanoseconds from `start` to `end`, 0 if a reading taken on another core a moment
  /// earlier put `end` before `start`.
  @inline(__always)
  private static func nanoseconds(from start: UInt64, to end: UInt64) -> Int64 {
    end > start ? Int64(clamping: end &- start) : 0
  }
}

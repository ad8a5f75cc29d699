import Metrics
import SpoolCore
import SpoolProfiling
import Synchronization

/// Reports a store's action latencies and effects to swift-metrics.
///
/// Give it to a store as its instrumentation (or combine it with a `LatencyRecorder` through
/// ``CombinedInstrumentation``). It reports, with the dimensions `store` (the label given to
/// ``init(store:recording:factory:)``) and `action` (the action case, nested cases flattened as
/// `child(.row(.toggle))`; payloads never appear):
///
/// - per action case, the queue wait (``StoreMetricLabels/queueWait``: from `send` or `enqueue`
///   to the start of the reduce) and the reduce time (``StoreMetricLabels/reduce``), as
///   ``MetricsRecording`` says: by default as histograms counted here and published in batches
///   (`…_bucket`, `…_sum` and `…_count` counters), or as one `Timer` observation each per
///   action (``MetricsRecording/timers``);
/// - per action case that started effects, a `Counter` of the effects that ended, with an
///   `outcome` dimension (``StoreMetricLabels/effects``);
/// - per store, a `Meter` of the effects running now (``StoreMetricLabels/runningEffects``),
///   which returns to 0 when `finish()` returns.
///
/// Metric objects are created once per case and cached. Budget per action after a case's
/// first sight: one lock, a case lookup that reads the enum tag through the value witness
/// table and never formats a string, and then either two bucket increments (histograms; a
/// publication, off the store's path, every ``MetricsRecording/histograms(buckets:publishEvery:fileID:filePath:line:column:)``
/// interval at most) or two `recordNanoseconds` calls, whose cost is the backend's (timers); no
/// allocation of ours. Per effect: a meter increment at its start (no lock of ours); a lookup,
/// a counter increment and a meter decrement at its end. <doc:SpoolMetrics> gives the measured
/// cost.
///
/// One instrumentation may observe several stores of the same action type; their figures add
/// up under the one `store` label.
///
/// ```swift
/// let registry = PrometheusCollectorRegistry()
/// MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
/// let metrics = MetricsInstrumentation<Checkout.Action>(store: "checkout")
/// let store = Store(initialState: Checkout.State(), instrumentation: metrics) {
///   Checkout()
/// }
/// // In the `/metrics` handler: what was counted up to now, then the exposition.
/// metrics.publish()
/// let body = registry.emitToString()
/// ```
public final class MetricsInstrumentation<Action: Sendable>: StoreInstrumentation {
  // The case table and the cached metric objects; the lock makes `effectEnded` (any thread)
  // safe against the store's executor.
  private let state: Mutex<MetricsState>
  // Thread-safe by the backend's contract; touched without the lock.
  private let runningEffects: Meter
  /// How long histogram counts may wait for their publication; `nil` when recording timers.
  private let publishInterval: Duration?

  /// Creates an instrumentation that reports under the store label `store`.
  ///
  /// - Parameters:
  ///   - store: The value of the `store` dimension of every metric.
  ///   - recording: How action latencies are reported: histograms published in batches by
  ///     default, or ``MetricsRecording/timers``.
  ///   - factory: The backend. By default, the one `MetricsSystem.bootstrap(_:)` installed
  ///     before this call; a test passes its own `TestMetrics`.
  ///
  /// ```swift
  /// let metrics = MetricsInstrumentation<Checkout.Action>(store: "checkout")
  /// ```
  public init(
    store: String,
    recording: MetricsRecording = .histograms(),
    factory: any MetricsFactory = MetricsSystem.factory
  ) {
    let bounds: [UInt64]?
    switch recording.kind {
    case .timers:
      bounds = nil
      publishInterval = nil
    case let .histograms(histogramBounds, interval):
      bounds = histogramBounds
      publishInterval = interval
    }
    self.state = Mutex(
      MetricsState(
        actionType: Action.self, size: MemoryLayout<Action>.size,
        alignment: MemoryLayout<Action>.alignment, store: store, factory: factory,
        bounds: bounds))
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
    let queueWait = Self.nanoseconds(from: enqueuedAt, to: startedAt)
    let reduce = Self.nanoseconds(from: startedAt, to: endedAt)
    guard publishInterval == nil else {
      let mustSchedule = withUnsafeBytes(of: action) { bytes in
        let address = ActionAddress(bytes: bytes, alignment: MemoryLayout<Action>.alignment)
        return state.withLock {
          $0.count(forValueAt: address, queueWait: queueWait, reduce: reduce)
        }
      }
      if mustSchedule { schedulePublication() }
      return
    }
    let metrics = withUnsafeBytes(of: action) { bytes in
      let address = ActionAddress(bytes: bytes, alignment: MemoryLayout<Action>.alignment)
      return state.withLock { $0.actionMetrics(forValueAt: address) }
    }
    metrics.queueWait.recordNanoseconds(Int64(clamping: queueWait))
    metrics.reduce.recordNanoseconds(Int64(clamping: reduce))
  }

  /// Publishes the histogram counts of the actions reduced so far to the backend now, instead
  /// of at the end of the publishing interval; nothing to do when recording timers.
  ///
  /// A `/metrics` handler calls it before it renders, so that a scrape sees every action
  /// reduced before it; a program calls it before it exits. Safe from any thread.
  ///
  /// ```swift
  /// router.get("metrics") { _, _ in
  ///   metrics.publish()
  ///   return registry.emitToString()
  /// }
  /// ```
  public func publish() {
    let publications = state.withLock { $0.takePending() }
    for publication in publications { publication.publish() }
  }

  /// Publishes the counts after the publishing interval, from a task of its own: started by
  /// the first count after a publication, so that nothing runs while no action arrives.
  private func schedulePublication() {
    guard let interval = publishInterval else { return }
    // Detached: the publication must not run on, or inherit the task locals of, the store's
    // executor. The task keeps the instrumentation alive until it has published.
    Task.detached { [self] in
      try? await Task.sleep(for: interval)
      publish()
    }
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
  private static func nanoseconds(from start: UInt64, to end: UInt64) -> UInt64 {
    end > start ? end &- start : 0
  }
}

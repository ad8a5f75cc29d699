import Metrics
import SpoolCore
import SpoolProfiling
import Synchronization

/// Reports a store's action latencies and effects to swift-metrics.
///
/// Give it to a store as its instrumentation (or combine it with a `LatencyRecorder` through
/// ``CombinedInstrumentation``). It reports, with the dimensions `store` (the label given to
/// ``init(store:recording:sampling:factory:)``) and `action` (the action case, nested cases
/// flattened as `child(.row(.toggle))`; payloads never appear):
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
/// Metric objects are created once per case and cached. With histograms (the default), an
/// action of a top-level case its thread has seen before takes no lock and allocates nothing:
/// each thread counts into buckets of its own, which the publication adds up off the store's
/// path; the case is read from the enum tag through the value witness table, never formatted.
/// A thread's first action, a case's first sight on a thread, and an action of a nested case
/// (`child(.row(.toggle))`) take one lock to find their bucket. With
/// ``MetricsRecording/timers``, an action takes one lock for the case lookup and two
/// `recordNanoseconds` calls, whose cost is the backend's. Per effect: a meter increment at its
/// start (no lock of ours); a lookup, a counter increment and a meter decrement at its end.
/// <doc:SpoolMetrics> gives the measured cost.
///
/// One instrumentation may observe several stores of the same action type; their figures add
/// up under the one `store` label.
///
/// Sampled (`sampling: .oneIn(N)`), the store times one action in N: the histograms (or
/// timers) hold the timed actions, and a `Counter` per case (``StoreMetricLabels/actions``)
/// counts every action, so rates stay exact while the clock is read for one action in N. With
/// histograms, each store counts its untimed actions in cells of its own, with no call into
/// the instrumentation (except those of a case whose payload is an enum, `child(.toggle)`,
/// which a call labels), and each publication adds up what the stores counted (a store that
/// goes away hands its counts over first).
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
  /// Histogram recording's bounds and interval; `nil` when recording timers.
  private let histogramLayout: HistogramLayout?
  /// Reads an action's top-level case without the lock; immutable.
  private let tagReader: ActionTagReader
  /// This instrumentation's key in each thread's `ThreadCellsCache`.
  private let ownerID = ThreadCellsCache.makeOwnerID()
  /// Set while the publishing task runs (histogram recording); read by the stores that count
  /// untimed actions themselves, which start it when it does not run.
  private let publication = StoreCaseCounts.Pickup()

  /// How many of the actions the store times for this instrumentation, as given to the
  /// initializer.
  ///
  /// ```swift
  /// MetricsInstrumentation<Checkout.Action>(store: "checkout", sampling: .oneIn(64))
  ///   .timingSampling.interval  // 64
  /// ```
  public let timingSampling: TimingSampling

  /// What histogram recording needs on the hot path, immutable.
  private struct HistogramLayout: Sendable {
    let bounds: [UInt64]
    let bucketsPerKind: Int
    let interval: Duration
  }

  /// Creates an instrumentation that reports under the store label `store`.
  ///
  /// - Parameters:
  ///   - store: The value of the `store` dimension of every metric.
  ///   - recording: How action latencies are reported: histograms published in batches by
  ///     default, or ``MetricsRecording/timers``.
  ///   - sampling: How many of the actions the store times: every one (the default), or one
  ///     in N (`.oneIn(N)`), with every action counted in ``StoreMetricLabels/actions``.
  ///   - factory: The backend. By default, the one `MetricsSystem.bootstrap(_:)` installed
  ///     before this call; a test passes its own `TestMetrics`.
  ///
  /// ```swift
  /// let metrics = MetricsInstrumentation<Checkout.Action>(store: "checkout")
  /// let sampled = MetricsInstrumentation<Checkout.Action>(store: "cart", sampling: .oneIn(64))
  /// ```
  public init(
    store: String,
    recording: MetricsRecording = .histograms(),
    sampling: TimingSampling = .everyAction,
    factory: any MetricsFactory = MetricsSystem.factory
  ) {
    self.timingSampling = sampling
    let bounds: [UInt64]?
    switch recording.kind {
    case .timers:
      bounds = nil
      histogramLayout = nil
    case let .histograms(histogramBounds, interval):
      bounds = histogramBounds
      histogramLayout = HistogramLayout(
        bounds: histogramBounds, bucketsPerKind: histogramBounds.count + 1, interval: interval)
    }
    let state = MetricsState(
      actionType: Action.self, size: MemoryLayout<Action>.size,
      alignment: MemoryLayout<Action>.alignment, store: store, factory: factory,
      bounds: bounds, countsActions: sampling.isSampled)
    self.tagReader = state.tagReader
    self.state = Mutex(state)
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
    withUnsafePointer(to: action) { action in
      _actionReduced(at: action, enqueuedAt: enqueuedAt, startedAt: startedAt, endedAt: endedAt)
    }
  }

  /// As ``actionReduced(_:enqueuedAt:startedAt:endedAt:)``, with the action read in place:
  /// what the store calls.
  ///
  /// ```swift
  /// withUnsafePointer(to: Counter.Action.tap) { tap in
  ///   metrics._actionReduced(at: tap, enqueuedAt: 100, startedAt: 150, endedAt: 190)
  /// }
  /// ```
  public func _actionReduced(
    at action: UnsafePointer<Action>, enqueuedAt: UInt64, startedAt: UInt64, endedAt: UInt64
  ) {
    let queueWait = Self.nanoseconds(from: enqueuedAt, to: startedAt)
    let reduce = Self.nanoseconds(from: startedAt, to: endedAt)
    let address = ActionAddress(UnsafeRawPointer(action))
    guard let histogramLayout else {
      let metrics = timerMetrics(at: address)
      metrics.queueWait.recordNanoseconds(Int64(clamping: queueWait))
      metrics.reduce.recordNanoseconds(Int64(clamping: reduce))
      metrics.actions?.increment()
      return
    }
    // Budget: ``threadSlot(of:)``'s, two bucket searches and four single-writer stores; no
    // lock, no allocation.
    let (slot, cells) = threadSlot(of: address)
    ThreadHistograms.record(
      into: cells, slot: slot, bucketsPerKind: histogramLayout.bucketsPerKind,
      queueWait: (PendingHistograms.bucket(of: queueWait, in: histogramLayout.bounds), queueWait),
      reduce: (PendingHistograms.bucket(of: reduce, in: histogramLayout.bounds), reduce))
    // Read-mostly: written once per publication cycle, so this stays in the cache.
    if !publication.isScheduled.load(ordering: .relaxed) { schedulePublication() }
  }

  /// Counts an action that the store reduced without timing it (sampling). Called by the
  /// store.
  ///
  /// ```swift
  /// metrics.actionCounted(.tap)
  /// ```
  public func actionCounted(_ action: Action) {
    withUnsafePointer(to: action) { _actionCounted(at: $0) }
  }

  /// As ``actionCounted(_:)``, with the action read in place: what the store calls.
  ///
  /// ```swift
  /// withUnsafePointer(to: Counter.Action.tap) { metrics._actionCounted(at: $0) }
  /// ```
  public func _actionCounted(at action: UnsafePointer<Action>) {
    let address = ActionAddress(UnsafeRawPointer(action))
    guard let histogramLayout else {
      timerMetrics(at: address).actions?.increment()
      return
    }
    // Budget as `_actionReduced`'s, with one single-writer store instead of four.
    let (slot, cells) = threadSlot(of: address)
    ThreadHistograms.count(into: cells, slot: slot, bucketsPerKind: histogramLayout.bucketsPerKind)
    if !publication.isScheduled.load(ordering: .relaxed) { schedulePublication() }
  }

  /// The timers and the counter of the case of the action at `address`, for
  /// `recording: .timers`: found (or made, on a case's first sight) under the
  /// instrumentation's lock.
  private func timerMetrics(at address: ActionAddress) -> MetricsState.ActionMetrics {
    state.withLock { $0.actionMetrics(forValueAt: address) }
  }

  /// The calling thread's cells, and the slot in them of the action at `address`; see
  /// `ThreadCellsCache.slot(owner:topLevelTag:locate:)` for the budget.
  @inline(__always)
  private func threadSlot(of address: ActionAddress) -> (slot: Int, cells: ThreadCells) {
    let tag = tagReader.tag(ofValueAt: address.pointer)
    return ThreadCellsCache.slot(owner: ownerID, topLevelTag: tag) {
      state.withLock { $0.locate(valueAt: address, topLevelTag: tag) }
    }
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
    publishCounts()
  }

  /// Publishes what was counted since the last publication; whether there was anything.
  @discardableResult
  private func publishCounts() -> Bool {
    let publications = state.withLock { $0.takePending() }
    for publication in publications { publication.publish() }
    return !publications.isEmpty
  }

  /// Starts the publishing task, unless it runs: it publishes every interval while actions
  /// arrive, and ends after an interval without any, so that nothing runs while none arrive.
  private func schedulePublication() {
    guard let interval = histogramLayout?.interval else { return }
    guard
      publication.isScheduled.compareExchange(
        expected: false, desired: true, ordering: .acquiringAndReleasing
      ).exchanged
    else { return }
    // Detached: the publication must not run on, or inherit the task locals of, the store's
    // executor. The task keeps the instrumentation alive until it ends.
    Task.detached { [self] in
      while true {
        try? await Task.sleep(for: interval)
        if publishCounts() { continue }
        // Idle for an interval: stop. A thread that recorded (or a store that counted) just
        // now may still have read the flag as set, without scheduling; the closing
        // publication, an interval later, when its stores have long been visible, publishes
        // what it recorded.
        publication.isScheduled.store(false, ordering: .sequentiallyConsistent)
        try? await Task.sleep(for: interval)
        publishCounts()
        return
      }
    }
  }

  deinit {
    // No thread records into this instrumentation any more: it is going away.
    state.withLock { $0.deallocate() }
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

// Its `_actionReduced(at:…)` reads the action in place.
extension MetricsInstrumentation: InPlaceActionTiming {}

extension MetricsInstrumentation: StoreCaseCountingInstrumentation {
  /// Cells for a store's untimed actions, when the instrumentation samples into histograms:
  /// the store counts them itself, and each publication adds up what the stores counted.
  /// Recording timers, it is called per action and increments the backend's counter.
  package func makeStoreCaseCounts() -> StoreCaseCounts? {
    guard timingSampling.isSampled, histogramLayout != nil else { return nil }
    return state.withLock { $0.makeStoreCounts(owner: self, pickup: publication) }
  }

  package func retireStoreCaseCounts(id: Int) {
    state.withLock { $0.retireStoreCounts(id: id) }
  }

  /// A store counted while the publishing task did not run: start it.
  package func storeCaseCountsNeedPickup() {
    schedulePublication()
  }
}

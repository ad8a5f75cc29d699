import Histogram
import SpoolCore
import Synchronization

/// Records how several stores behave over time: per interval, the actions each reduced, the
/// percentiles of their queue wait and reduce time, and their live effects.
///
/// Each store gets its own ``TimelineInstrumentation`` (one per feature, any action type) from
/// ``instrumentation(_:for:)``; a sampler calls ``sample(residentBytes:at:)`` once per interval,
/// which folds what every feature recorded since the previous sample into a ``TimelineSample``
/// and starts the next interval from zero. ``actionCases()`` and ``effects()`` give the whole
/// run, one row per feature.
///
/// Cost per action: one uncontended lock (each feature has its own) and two counter
/// increments in preallocated buckets; no allocation, no clock read beyond the store's. Per
/// sample, each feature's lock is held while its two interval histograms are folded and
/// cleared (tens of microseconds, once per interval). Memory: about 120 KB per feature, fixed.
///
/// ```swift
/// let timeline = TimelineRecorder()
/// let store = Store(
///   initialState: Counter.State(),
///   instrumentation: timeline.instrumentation("counter", for: Counter.Action.self)
/// ) { Counter() }
/// // … every second:
/// let sample = timeline.sample(residentBytes: currentRSS())
/// ```
public final class TimelineRecorder: Sendable {
  // Appended to when a feature registers; read by the sampler.
  private let features = Mutex<[TimelineFeature]>([])
  // Only the sampler touches it; a lock so that the recorder stays Sendable.
  private let sampler: Mutex<SamplerState>

  private struct SamplerState {
    var start: UInt64
    var previous: UInt64
    /// Whole-run histograms per feature, by registration index.
    var queueWait: [Histogram<UInt64>] = []
    var reduce: [Histogram<UInt64>] = []

    /// Adds each feature's interval into its whole-run histograms.
    mutating func add(_ intervals: [TimelineFeature.Interval]) {
      while queueWait.count < intervals.count {
        queueWait.append(.latency())
        reduce.append(.latency())
      }
      for (index, interval) in intervals.enumerated() {
        queueWait[index].add(interval.queueWait)
        reduce[index].add(interval.reduce)
      }
    }
  }

  /// The order of features in samples and totals; features not named come after, in the
  /// order they registered.
  private let featureOrder: [String: Int]

  /// Creates a recorder whose timeline starts at `start`.
  ///
  /// - Parameters:
  ///   - start: Time 0 of the timeline, as `SpoolTime.now()` gives it; now by default.
  ///   - featureOrder: The order in which features are listed in samples and totals, whatever
  ///     order their stores registered in (concurrent drivers register in any order).
  ///
  /// ```swift
  /// let timeline = TimelineRecorder(featureOrder: ["counter", "effects"])
  /// ```
  public init(startingAt start: UInt64 = SpoolTime.now(), featureOrder: [String] = []) {
    sampler = Mutex(SamplerState(start: start, previous: start))
    self.featureOrder = Dictionary(
      featureOrder.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
  }

  /// `rows` in the recorder's feature order (a stable sort: unnamed features keep theirs).
  private func ordered<Row>(_ rows: [Row], name: (Row) -> String) -> [Row] {
    rows.enumerated()
      .sorted { left, right in
        let leftRank = featureOrder[name(left.element)] ?? Int.max
        let rightRank = featureOrder[name(right.element)] ?? Int.max
        return leftRank != rightRank ? leftRank < rightRank : left.offset < right.offset
      }
      .map(\.element)
  }

  /// Starts the clock again: the next sample's interval and elapsed time count from `now`.
  ///
  /// ```swift
  /// timeline.restart()  // setup done; the timeline starts here
  /// ```
  public func restart(at now: UInt64 = SpoolTime.now()) {
    sampler.withLock {
      $0.start = now
      $0.previous = now
    }
  }

  /// A new instrumentation for one store, reported under `feature`.
  ///
  /// - Parameters:
  ///   - feature: The name of the feature in samples and totals, `counter`.
  ///   - action: The store's action type.
  ///
  /// ```swift
  /// let instrumentation = timeline.instrumentation("todos", for: Todos.Action.self)
  /// ```
  public func instrumentation<Action: Sendable>(
    _ feature: String, for action: Action.Type = Action.self
  ) -> TimelineInstrumentation<Action> {
    let made = TimelineFeature(name: feature)
    features.withLock { $0.append(made) }
    return TimelineInstrumentation(feature: made)
  }

  /// Ends the current interval at `now` and returns what happened during it.
  ///
  /// - Parameters:
  ///   - residentBytes: The process's resident set size now (0 when unknown).
  ///   - now: The end of the interval, as `SpoolTime.now()` gives it; now by default.
  ///
  /// ```swift
  /// let sample = timeline.sample(residentBytes: 40 << 20)
  /// ```
  public func sample(residentBytes: Int, at now: UInt64 = SpoolTime.now()) -> TimelineSample {
    let features = self.features.withLock { $0 }
    let intervals = features.map { $0.drain() }
    return sampler.withLock { state in
      state.add(intervals)
      var queueWait = Histogram<UInt64>.latency()
      var reduce = Histogram<UInt64>.latency()
      var rows: [TimelineFeatureSample] = []
      for (feature, interval) in zip(features, intervals) {
        queueWait.add(interval.queueWait)
        reduce.add(interval.reduce)
        rows.append(
          TimelineFeatureSample(
            name: feature.name, actions: interval.actions, liveEffects: interval.liveEffects,
            queueWaitP99Nanoseconds: Self.p99(interval.queueWait),
            reduceP99Nanoseconds: Self.p99(interval.reduce)))
      }
      let elapsed = now &- Swift.min(state.start, now)
      let duration = now &- Swift.min(state.previous, now)
      state.previous = now
      return TimelineSample(
        elapsedSeconds: Double(elapsed) / 1e9, durationSeconds: Double(duration) / 1e9,
        residentBytes: residentBytes, actions: intervals.reduce(0) { $0 + $1.actions },
        liveEffects: intervals.reduce(0) { $0 + $1.liveEffects },
        queueWait: IntervalLatency(queueWait), reduce: IntervalLatency(reduce),
        features: ordered(rows, name: \.name))
    }
  }

  /// The whole run, one row per feature (labelled with the feature's name), including what was
  /// recorded since the last sample.
  ///
  /// ```swift
  /// for row in timeline.actionCases() { print(row.label, row.count, row.reduce.p99Nanoseconds) }
  /// ```
  public func actionCases() -> [ActionCaseReport] {
    let features = self.features.withLock { $0 }
    let intervals = features.map { $0.drain() }
    return sampler.withLock { state in
      state.add(intervals)
      let rows = features.indices.map { index in
        ActionCaseReport(
          label: features[index].name, count: Int(state.reduce[index].totalCount),
          queueWait: LatencySummary(state.queueWait[index]),
          reduce: LatencySummary(state.reduce[index]))
      }
      return ordered(rows, name: \.label)
    }
  }

  /// Effect outcomes and lifetimes of the whole run, one row per feature that started effects.
  ///
  /// ```swift
  /// let failed = timeline.effects().reduce(0) { $0 + $1.failed }
  /// ```
  public func effects() -> [EffectReport] {
    ordered(features.withLock { $0 }.compactMap { $0.effectReport() }, name: \.label)
  }

  private static func p99(_ histogram: Histogram<UInt64>) -> UInt64 {
    histogram.totalCount > 0 ? histogram.valueAtPercentile(99) : 0
  }
}

extension IntervalLatency {
  /// The median, p99 and max of a latency histogram; all 0 when it is empty.
  init(_ histogram: Histogram<UInt64>) {
    guard histogram.totalCount > 0 else {
      self = .empty
      return
    }
    self.init(
      p50Nanoseconds: histogram.valueAtPercentile(50),
      p99Nanoseconds: histogram.valueAtPercentile(99), maxNanoseconds: histogram.max)
  }
}

/// A store's instrumentation that feeds a ``TimelineRecorder``.
///
/// Made by ``TimelineRecorder/instrumentation(_:for:)``; give it to one store.
///
/// ```swift
/// let store = Store(
///   initialState: Effects.State(),
///   instrumentation: timeline.instrumentation("effects", for: Effects.Action.self)
/// ) { Effects() }
/// ```
public final class TimelineInstrumentation<Action: Sendable>: StoreInstrumentation {
  let feature: TimelineFeature

  init(feature: TimelineFeature) {
    self.feature = feature
  }

  /// Counts the action and its queue wait and reduce time in the current interval.
  ///
  /// - Complexity: O(1); one lock, no allocation.
  public func actionReduced(
    _ action: Action, enqueuedAt: UInt64, startedAt: UInt64, endedAt: UInt64
  ) {
    feature.actionReduced(
      queueWait: startedAt &- Swift.min(enqueuedAt, startedAt),
      reduce: endedAt &- Swift.min(startedAt, endedAt))
  }

  /// Counts a live effect.
  public func effectStarted(by action: Action, at time: UInt64) {
    feature.effectStarted()
  }

  /// Counts the effect's outcome and lifetime; it is no longer live.
  public func effectEnded(
    by action: Action, startedAt: UInt64, endedAt: UInt64, outcome: EffectOutcome
  ) {
    feature.effectEnded(lifetime: endedAt &- Swift.min(startedAt, endedAt), outcome: outcome)
  }
}

/// One feature's figures: the current interval's counts and the run's effect counters.
final class TimelineFeature: Sendable {
  /// What one interval of the feature held, folded out of its counts.
  struct Interval: Sendable {
    var actions: Int
    var liveEffects: Int
    var queueWait: Histogram<UInt64>
    var reduce: Histogram<UInt64>
  }

  private struct State {
    // The counts write through to the arena's buffers; the arena frees them with the state.
    let arena = LatencyCountsArena()
    let queueWait: LatencyCounts
    let reduce: LatencyCounts
    let lifetime: LatencyCounts
    var actions = 0
    var started = 0
    var finished = 0
    var cancelled = 0
    var failed = 0

    init() {
      queueWait = arena.make()
      reduce = arena.make()
      lifetime = arena.make()
    }

    var live: Int { Swift.max(0, started - finished - cancelled - failed) }
  }

  let name: String
  // Written by the store's executor (actions, effect starts) and by effect tasks on any thread
  // (effect ends); read and cleared by the sampler. Protected by its own lock.
  private let state = Mutex(State())

  init(name: String) {
    self.name = name
  }

  @inline(__always)
  func actionReduced(queueWait: UInt64, reduce: UInt64) {
    state.withLock {
      $0.queueWait.record(queueWait)
      $0.reduce.record(reduce)
      $0.actions &+= 1
    }
  }

  func effectStarted() {
    state.withLock { $0.started += 1 }
  }

  func effectEnded(lifetime: UInt64, outcome: EffectOutcome) {
    state.withLock {
      $0.lifetime.record(lifetime)
      switch outcome {
      case .finished: $0.finished += 1
      case .cancelled: $0.cancelled += 1
      case .failed: $0.failed += 1
      }
    }
  }

  /// The interval since the previous drain; its counts start again from zero.
  func drain() -> Interval {
    state.withLock {
      let interval = Interval(
        actions: $0.actions, liveEffects: $0.live, queueWait: $0.queueWait.histogram(),
        reduce: $0.reduce.histogram())
      $0.queueWait.reset()
      $0.reduce.reset()
      $0.actions = 0
      return interval
    }
  }

  /// The run's effect outcomes and lifetimes; `nil` when the feature started none.
  func effectReport() -> EffectReport? {
    state.withLock {
      guard $0.started > 0 else { return nil }
      return EffectReport(
        label: name, started: $0.started, finished: $0.finished, cancelled: $0.cancelled,
        failed: $0.failed, lifetime: LatencySummary($0.lifetime.histogram()))
    }
  }
}

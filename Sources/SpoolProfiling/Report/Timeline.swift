/// How a long run evolved: memory, throughput, latency and live effects, sampled at a fixed
/// interval, with the verdict on whether they stayed flat.
///
/// `spool bench soak` writes one in its workload's report (``WorkloadReport/timeline``); other
/// workloads have none. A ``TimelineRecorder`` makes the samples; ``FlatnessCriteria`` judges
/// them.
///
/// ```swift
/// if let timeline = workload.timeline {
///   for sample in timeline.samples {
///     print(sample.elapsedSeconds, sample.residentBytes, sample.reduce.p99Nanoseconds)
///   }
///   print(timeline.flatness.outcome)
/// }
/// ```
public struct Timeline: Codable, Sendable, Equatable {
  /// The interval asked for between samples, in seconds (a sample's own
  /// ``TimelineSample/durationSeconds`` is what it really covered).
  public var intervalSeconds: Double
  /// One per interval, oldest first.
  public var samples: [TimelineSample]
  /// Whether memory, latency and live effects stayed flat over the samples.
  public var flatness: FlatnessVerdict

  /// Creates a timeline.
  ///
  /// ```swift
  /// let timeline = Timeline(
  ///   intervalSeconds: 1, samples: samples, flatness: FlatnessCriteria().verdict(for: samples)
  /// )
  /// ```
  public init(intervalSeconds: Double, samples: [TimelineSample], flatness: FlatnessVerdict) {
    self.intervalSeconds = intervalSeconds
    self.samples = samples
    self.flatness = flatness
  }
}

/// What happened during one interval of a timeline.
///
/// Latencies are those of the actions reduced during the interval, over every observed store;
/// ``features`` breaks them down per feature (one store each).
///
/// ```swift
/// let sample = timeline.samples.last!
/// print(sample.throughputPerSecond, sample.queueWait.p99Nanoseconds)
/// ```
public struct TimelineSample: Codable, Sendable, Equatable {
  /// Seconds from the start of the run to the end of the interval.
  public var elapsedSeconds: Double
  /// The interval's real length, in seconds.
  public var durationSeconds: Double
  /// The process's resident set size at the end of the interval (`VmRSS`); 0 when unknown.
  public var residentBytes: Int
  /// Actions reduced during the interval.
  public var actions: Int
  /// Effects started and not yet ended at the end of the interval.
  public var liveEffects: Int
  /// Queue wait of the interval's actions.
  public var queueWait: IntervalLatency
  /// Reduce time of the interval's actions.
  public var reduce: IntervalLatency
  /// The same figures per feature, in the order the features were registered.
  public var features: [TimelineFeatureSample]

  /// `actions / durationSeconds`; 0 for a zero duration.
  public var throughputPerSecond: Double {
    WorkloadReport.throughput(actions: actions, seconds: durationSeconds)
  }

  /// Creates a sample.
  ///
  /// ```swift
  /// let sample = TimelineSample(
  ///   elapsedSeconds: 1, durationSeconds: 1, residentBytes: 40 << 20, actions: 1_000,
  ///   liveEffects: 3, queueWait: .empty, reduce: .empty, features: []
  /// )
  /// ```
  public init(
    elapsedSeconds: Double, durationSeconds: Double, residentBytes: Int, actions: Int,
    liveEffects: Int, queueWait: IntervalLatency, reduce: IntervalLatency,
    features: [TimelineFeatureSample]
  ) {
    self.elapsedSeconds = elapsedSeconds
    self.durationSeconds = durationSeconds
    self.residentBytes = residentBytes
    self.actions = actions
    self.liveEffects = liveEffects
    self.queueWait = queueWait
    self.reduce = reduce
    self.features = features
  }
}

/// The median, 99th percentile and maximum of one interval's latencies, in nanoseconds; all 0
/// when the interval reduced no action.
///
/// ```swift
/// let latency = IntervalLatency(
///   p50Nanoseconds: 400, p99Nanoseconds: 9_000, maxNanoseconds: 20_000
/// )
/// ```
public struct IntervalLatency: Codable, Sendable, Equatable {
  /// Median.
  public var p50Nanoseconds: UInt64
  /// 99th percentile.
  public var p99Nanoseconds: UInt64
  /// Largest value (to the histogram's precision).
  public var maxNanoseconds: UInt64

  /// No values.
  public static let empty = IntervalLatency(
    p50Nanoseconds: 0, p99Nanoseconds: 0, maxNanoseconds: 0)

  /// Creates the figures of an interval.
  ///
  /// ```swift
  /// let latency = IntervalLatency(p50Nanoseconds: 1, p99Nanoseconds: 2, maxNanoseconds: 3)
  /// ```
  public init(p50Nanoseconds: UInt64, p99Nanoseconds: UInt64, maxNanoseconds: UInt64) {
    self.p50Nanoseconds = p50Nanoseconds
    self.p99Nanoseconds = p99Nanoseconds
    self.maxNanoseconds = maxNanoseconds
  }
}

/// One feature's share of a timeline sample: its actions, its 99th percentiles, its live
/// effects. Enough to name the feature whose latency or effects grew.
///
/// ```swift
/// let counter = TimelineFeatureSample(
///   name: "counter", actions: 500, liveEffects: 0,
///   queueWaitP99Nanoseconds: 80_000, reduceP99Nanoseconds: 60
/// )
/// ```
public struct TimelineFeatureSample: Codable, Sendable, Equatable {
  /// The feature, `counter`.
  public var name: String
  /// Actions its store reduced during the interval.
  public var actions: Int
  /// Its effects started and not yet ended at the end of the interval.
  public var liveEffects: Int
  /// 99th percentile of its actions' queue wait in the interval; 0 without actions.
  public var queueWaitP99Nanoseconds: UInt64
  /// 99th percentile of its actions' reduce time in the interval; 0 without actions.
  public var reduceP99Nanoseconds: UInt64

  /// Creates a feature's figures for one interval.
  ///
  /// ```swift
  /// let row = TimelineFeatureSample(
  ///   name: "echo", actions: 10, liveEffects: 9, queueWaitP99Nanoseconds: 1_000,
  ///   reduceP99Nanoseconds: 500
  /// )
  /// ```
  public init(
    name: String, actions: Int, liveEffects: Int, queueWaitP99Nanoseconds: UInt64,
    reduceP99Nanoseconds: UInt64
  ) {
    self.name = name
    self.actions = actions
    self.liveEffects = liveEffects
    self.queueWaitP99Nanoseconds = queueWaitP99Nanoseconds
    self.reduceP99Nanoseconds = reduceP99Nanoseconds
  }
}

/// Whether a timeline stayed flat: memory, latency and live effects compared between the first
/// and the last third of the run, after a warm-up.
///
/// ``FlatnessCriteria/verdict(for:)`` makes it; `spool bench soak` stores it in the report's
/// ``Timeline`` and exits with a failure when the outcome is ``Outcome/grew``.
///
/// ```swift
/// let verdict = FlatnessCriteria().verdict(for: timeline.samples)
/// for check in verdict.checks where check.grew {
///   print(check.description)  // RSS grew: 40.1 MiB → 61.0 MiB (x1.52; limit x1.10 and 4.0 MiB)
/// }
/// ```
public struct FlatnessVerdict: Codable, Sendable, Equatable {
  /// The judgement.
  public enum Outcome: String, Codable, Sendable {
    /// Every check stayed within its limit.
    case flat
    /// At least one check grew past its limit.
    case grew
    /// Too few samples after the warm-up to compare two thirds; nothing was judged.
    case tooShort = "too-short"
  }

  /// The judgement.
  public var outcome: Outcome
  /// Samples at the start left out of the comparison.
  public var warmUpSamples: Int
  /// Samples in each of the two thirds compared (the first and the last after the warm-up).
  public var windowSamples: Int
  /// One per figure judged; empty when the run was too short.
  public var checks: [FlatnessCheck]

  /// The checks that grew past their limit.
  public var grown: [FlatnessCheck] { checks.filter(\.grew) }

  /// Creates a verdict.
  ///
  /// ```swift
  /// let verdict = FlatnessVerdict(
  ///   outcome: .tooShort, warmUpSamples: 1, windowSamples: 0, checks: []
  /// )
  /// ```
  public init(outcome: Outcome, warmUpSamples: Int, windowSamples: Int, checks: [FlatnessCheck]) {
    self.outcome = outcome
    self.warmUpSamples = warmUpSamples
    self.windowSamples = windowSamples
    self.checks = checks
  }
}

/// One figure of a timeline compared between its first and last third.
///
/// `first` and `last` are medians over the samples of each third (for latencies, over the
/// samples that reduced at least one action), so that one noisy interval moves neither; for
/// live effects they are minimums (see ``FlatnessCriteria``). The
/// figure grew when `last > first × maximumRatio` **and** `last - first > floor`: the ratio
/// catches growth, the floor keeps changes too small to matter (a few pages, a few
/// microseconds of scheduling) from counting.
///
/// ```swift
/// let check = verdict.checks.first { $0.metric == .residentBytes }!
/// print(check.first, check.last, check.grew)
/// ```
public struct FlatnessCheck: Codable, Sendable, Equatable, CustomStringConvertible {
  /// The figure judged.
  public enum Metric: String, Codable, Sendable, CaseIterable {
    /// ``TimelineSample/residentBytes``.
    case residentBytes
    /// ``TimelineSample/queueWait``'s p99.
    case queueWaitP99Nanoseconds
    /// ``TimelineSample/reduce``'s p99.
    case reduceP99Nanoseconds
    /// ``TimelineSample/liveEffects``.
    case liveEffects

    /// How messages name it: `RSS`, `queue wait p99`.
    public var title: String {
      switch self {
      case .residentBytes: "RSS"
      case .queueWaitP99Nanoseconds: "queue wait p99"
      case .reduceP99Nanoseconds: "reduce p99"
      case .liveEffects: "live effects"
      }
    }
  }

  /// How a third's samples are summarized.
  public enum Statistic: String, Codable, Sendable {
    /// The median of the samples.
    case median
    /// The smallest sample.
    case minimum
  }

  /// The figure judged.
  public var metric: Metric
  /// How each third was summarized.
  public var statistic: Statistic
  /// Its ``statistic`` over the first third after the warm-up.
  public var first: Double
  /// Its ``statistic`` over the last third.
  public var last: Double
  /// The largest `last / first` that counts as flat.
  public var maximumRatio: Double
  /// Growth (`last - first`, in the figure's unit) at or below which it never counts.
  public var floor: Double
  /// Whether it grew past both limits.
  public var grew: Bool
  /// When it grew and the figure exists per feature: the feature whose own median grew most.
  public var feature: String?

  /// Creates a check.
  ///
  /// ```swift
  /// let check = FlatnessCheck(
  ///   metric: .liveEffects, statistic: .minimum, first: 10, last: 12, maximumRatio: 2,
  ///   floor: 100, grew: false
  /// )
  /// ```
  public init(
    metric: Metric, statistic: Statistic = .median, first: Double, last: Double,
    maximumRatio: Double, floor: Double, grew: Bool, feature: String? = nil
  ) {
    self.metric = metric
    self.statistic = statistic
    self.first = first
    self.last = last
    self.maximumRatio = maximumRatio
    self.floor = floor
    self.grew = grew
    self.feature = feature
  }

  /// `last / first`; 1 when both are 0, infinite when only `first` is.
  public var ratio: Double {
    first > 0 ? last / first : (last > 0 ? .infinity : 1)
  }

  /// One line: `reduce p99 grew: 1.20µs → 9.80µs (x8.17; limit x2.00 and 10.00µs) in counter`.
  public var description: String {
    let ratioText = ratio.isFinite ? String(format: "x%.2f", ratio) : "from 0"
    let title = statistic == .minimum ? "\(metric.title) (minimum)" : metric.title
    return "\(title) \(grew ? "grew" : "stayed flat"): \(format(first)) → "
      + "\(format(last)) (\(ratioText); limit \(String(format: "x%.2f", maximumRatio)) and "
      + "\(format(floor)))" + (feature.map { " in \($0)" } ?? "")
  }

  /// The figure in its unit: MiB, a duration, or a count.
  public func format(_ value: Double) -> String {
    switch metric {
    case .residentBytes: DurationText.bytes(Int(value))
    case .queueWaitP99Nanoseconds, .reduceP99Nanoseconds: DurationText.nanoseconds(value)
    case .liveEffects: String(format: "%.0f", value)
    }
  }
}

/// What "flat" means for a timeline, and the judge that applies it.
///
/// The first ``warmUpFraction`` of the samples (at least one) are left out: stores, rows,
/// connections, allocator arenas and lazily made runtime metadata all appear there. The rest is
/// cut in thirds; each figure's median over the first third is compared with its median over the
/// last third (for live effects, the minimum: see below). A figure grew when its last value
/// exceeds `first × ratio` **and** `first + floor`. The defaults, and why:
///
/// - RSS: ratio 1.10, floor 4 MiB. A leak grows without bound; allocator arenas and
///   page-granular noise stay within a few MiB. RSS follows the allocator's high-water mark,
///   which can step up by a few MiB when more work is in flight at once: over a short run, a
///   "grew" near the limit wants a longer run before it is called a leak.
/// - reduce p99: ratio 2, floor 10 µs. The reducers' own cost: a per-action slowdown (a
///   registry that grows) doubles it; a preempted reduce is rarer than 1%.
/// - queue wait p99: ratio 3, floor 1 ms. It includes waiting behind the rest of a window and
///   for a core shared with other processes: noisier.
/// - live effects, on each third's minimum: ratio 2, floor 100. A leaked effect never ends, so
///   leaks raise the lowest count; effects in flight come and go with each window (0 to 1,000
///   at a random sampling point) and leave the minimum alone.
///
/// Medians over many intervals, rather than one percentile of a third, keep a burst of load
/// from elsewhere on a shared machine (a build, for a few seconds) from deciding the verdict;
/// a sustained growth moves the median.
///
/// ```swift
/// var criteria = FlatnessCriteria()
/// criteria.residentBytes = .init(ratio: 1.05, floor: 1 << 20)
/// let verdict = criteria.verdict(for: samples)
/// ```
public struct FlatnessCriteria: Sendable, Equatable {
  /// The growth a figure may show: `last ≤ first × ratio` or `last - first ≤ floor`.
  public struct Limit: Sendable, Equatable {
    /// The largest `last / first` that counts as flat.
    public var ratio: Double
    /// Growth in the figure's unit that never counts.
    public var floor: Double

    /// Creates a limit.
    ///
    /// ```swift
    /// let limit = FlatnessCriteria.Limit(ratio: 2, floor: 10_000)
    /// ```
    public init(ratio: Double, floor: Double) {
      self.ratio = ratio
      self.floor = floor
    }
  }

  /// The share of samples at the start left out (at least one sample).
  public var warmUpFraction = 0.1
  /// The fewest samples after the warm-up that are judged (two per third at least).
  public var minimumJudgedSamples = 6
  /// RSS.
  public var residentBytes = Limit(ratio: 1.10, floor: 4 * 1_048_576)
  /// p99 of reduce time, nanoseconds.
  public var reduceP99 = Limit(ratio: 2, floor: 10_000)
  /// p99 of queue wait, nanoseconds.
  public var queueWaitP99 = Limit(ratio: 3, floor: 1_000_000)
  /// Live effects.
  public var liveEffects = Limit(ratio: 2, floor: 100)

  /// The defaults above.
  ///
  /// ```swift
  /// let criteria = FlatnessCriteria()
  /// ```
  public init() {}

  /// Samples left out at the start of a timeline of `count` samples.
  public func warmUpSamples(of count: Int) -> Int {
    Swift.min(count, Swift.max(1, Int((Double(count) * warmUpFraction).rounded(.up))))
  }

  /// Judges `samples` (oldest first).
  ///
  /// - Returns: ``FlatnessVerdict/Outcome/tooShort`` with no checks when fewer than
  ///   ``minimumJudgedSamples`` remain after the warm-up; otherwise one check per figure.
  ///
  /// ```swift
  /// let verdict = FlatnessCriteria().verdict(for: timeline.samples)
  /// if verdict.outcome == .grew { print(verdict.grown.map(\.description)) }
  /// ```
  public func verdict(for samples: [TimelineSample]) -> FlatnessVerdict {
    let warmUp = warmUpSamples(of: samples.count)
    let judged = samples.count - warmUp
    let window = judged / 3
    guard judged >= minimumJudgedSamples, window > 0 else {
      return FlatnessVerdict(
        outcome: .tooShort, warmUpSamples: warmUp, windowSamples: 0, checks: [])
    }
    let first = Array(samples[warmUp..<(warmUp + window)])
    let last = Array(samples[(samples.count - window)...])
    let checks = [
      check(
        .residentBytes, residentBytes, first, last,
        figure: { Double($0.residentBytes) }, feature: nil),
      check(
        .queueWaitP99Nanoseconds, queueWaitP99, first, last, busyOnly: true,
        figure: { Double($0.queueWait.p99Nanoseconds) },
        feature: { Double($0.queueWaitP99Nanoseconds) }),
      check(
        .reduceP99Nanoseconds, reduceP99, first, last, busyOnly: true,
        figure: { Double($0.reduce.p99Nanoseconds) },
        feature: { Double($0.reduceP99Nanoseconds) }),
      check(
        .liveEffects, liveEffects, first, last, statistic: .minimum,
        figure: { Double($0.liveEffects) }, feature: { Double($0.liveEffects) }),
    ]
    return FlatnessVerdict(
      outcome: checks.contains(where: \.grew) ? .grew : .flat, warmUpSamples: warmUp,
      windowSamples: window, checks: checks)
  }

  /// Compares `statistic` of `figure` over `first` and `last`; when it grew, names the feature
  /// whose own figure grew most.
  private func check(
    _ metric: FlatnessCheck.Metric, _ limit: Limit, _ first: [TimelineSample],
    _ last: [TimelineSample], busyOnly: Bool = false,
    statistic: FlatnessCheck.Statistic = .median,
    figure: (TimelineSample) -> Double,
    feature: ((TimelineFeatureSample) -> Double)?
  ) -> FlatnessCheck {
    func summarize(_ values: [Double]) -> Double {
      switch statistic {
      case .median: Self.median(values)
      case .minimum: values.min() ?? 0
      }
    }
    func median(_ samples: [TimelineSample]) -> Double {
      summarize(samples.filter { !busyOnly || $0.actions > 0 }.map(figure))
    }
    let before = median(first)
    let after = median(last)
    let grew = Self.grew(from: before, to: after, limit)
    var grownFeature: String?
    if grew, let feature {
      var largest = 0.0
      for name in Self.featureNames(first + last) {
        func featureMedian(_ samples: [TimelineSample]) -> Double {
          summarize(
            samples.flatMap { $0.features.filter { $0.name == name } }
              .filter { !busyOnly || $0.actions > 0 }.map(feature))
        }
        let growth = featureMedian(last) - featureMedian(first)
        if growth > largest {
          largest = growth
          grownFeature = name
        }
      }
    }
    return FlatnessCheck(
      metric: metric, statistic: statistic, first: before, last: after,
      maximumRatio: limit.ratio, floor: limit.floor, grew: grew, feature: grownFeature)
  }

  static func grew(from first: Double, to last: Double, _ limit: Limit) -> Bool {
    last > first * limit.ratio && last - first > limit.floor
  }

  /// The median; the mean of the two middle values for an even count; 0 for none.
  static func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return 0 }
    let middle = sorted.count / 2
    return sorted.count.isMultiple(of: 2)
      ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
  }

  private static func featureNames(_ samples: [TimelineSample]) -> [String] {
    var seen: Set<String> = []
    var names: [String] = []
    for sample in samples {
      for feature in sample.features where seen.insert(feature.name).inserted {
        names.append(feature.name)
      }
    }
    return names
  }
}

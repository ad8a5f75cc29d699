import Foundation

/// A latency distribution in nanoseconds: count, mean, standard percentiles, max, and a curve of
/// percentiles for plotting.
///
/// Percentiles come from an HdrHistogram with two significant digits: each reported value is
/// within 1% of a recorded value.
///
/// ```swift
/// let reduce = row.reduce
/// print("p50 \(reduce.p50Nanoseconds) ns, p99.9 \(reduce.p999Nanoseconds) ns")
/// ```
public struct LatencySummary: Codable, Sendable, Equatable {
  /// Values recorded.
  public var count: Int
  /// Arithmetic mean.
  public var meanNanoseconds: Double
  /// Median.
  public var p50Nanoseconds: UInt64
  /// 90th percentile.
  public var p90Nanoseconds: UInt64
  /// 99th percentile.
  public var p99Nanoseconds: UInt64
  /// 99.9th percentile.
  public var p999Nanoseconds: UInt64
  /// Largest value recorded.
  public var maxNanoseconds: UInt64
  /// Value at each of ``curvePercentiles`` (for the SVG plot); empty when `count` is 0.
  public var distribution: [PercentilePoint]

  /// The percentiles the ``distribution`` curve samples, evenly spaced on a log scale of
  /// `1 / (1 - p)` (five points per decade), from 0 to 99.999, then 100.
  public static let curvePercentiles: [Double] = {
    var percentiles: [Double] = []
    for step in 0..<26 {
      let tail: Double = pow(10.0, -Double(step) / 5.0)
      percentiles.append(100.0 * (1.0 - tail))
    }
    percentiles.append(100)
    return percentiles
  }()

  /// The summary of no values.
  public static let empty = LatencySummary(
    count: 0, meanNanoseconds: 0, p50Nanoseconds: 0, p90Nanoseconds: 0, p99Nanoseconds: 0,
    p999Nanoseconds: 0, maxNanoseconds: 0, distribution: [])

  /// Creates a summary from known figures.
  ///
  /// ```swift
  /// let summary = LatencySummary(
  ///   count: 1, meanNanoseconds: 40, p50Nanoseconds: 40, p90Nanoseconds: 40,
  ///   p99Nanoseconds: 40, p999Nanoseconds: 40, maxNanoseconds: 40, distribution: []
  /// )
  /// ```
  public init(
    count: Int, meanNanoseconds: Double, p50Nanoseconds: UInt64, p90Nanoseconds: UInt64,
    p99Nanoseconds: UInt64, p999Nanoseconds: UInt64, maxNanoseconds: UInt64,
    distribution: [PercentilePoint]
  ) {
    self.count = count
    self.meanNanoseconds = meanNanoseconds
    self.p50Nanoseconds = p50Nanoseconds
    self.p90Nanoseconds = p90Nanoseconds
    self.p99Nanoseconds = p99Nanoseconds
    self.p999Nanoseconds = p999Nanoseconds
    self.maxNanoseconds = maxNanoseconds
    self.distribution = distribution
  }
}

/// One point of a percentile curve: `nanoseconds` at `percentile` (0 – 100).
///
/// ```swift
/// let tail = PercentilePoint(percentile: 99.9, nanoseconds: 1_200)
/// ```
public struct PercentilePoint: Codable, Sendable, Equatable {
  /// 0 – 100.
  public var percentile: Double
  /// The latency at that percentile.
  public var nanoseconds: UInt64

  /// Creates a point.
  ///
  /// ```swift
  /// let median = PercentilePoint(percentile: 50, nanoseconds: 40)
  /// ```
  public init(percentile: Double, nanoseconds: UInt64) {
    self.percentile = percentile
    self.nanoseconds = nanoseconds
  }
}

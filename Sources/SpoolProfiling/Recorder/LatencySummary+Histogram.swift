import Histogram

/// The HdrHistogram every Spool latency goes into (see ``Histogram/latency()``).
typealias LatencyHistogram = Histogram<UInt64>

extension Histogram<UInt64> {
  /// The histogram every Spool latency figure goes into: 1 ns to 1 hour, two significant
  /// digits (about 37 KB), values above the range clamped to it.
  static func latency() -> Self {
    Histogram(
      lowestDiscernibleValue: 1, highestTrackableValue: maximumLatency,
      numberOfSignificantValueDigits: .two)
  }

  /// One hour, in nanoseconds.
  static var maximumLatency: UInt64 { 3_600_000_000_000 }

  /// Records `nanoseconds`, clamped to ``maximumLatency``.
  ///
  /// - Complexity: O(1); no allocation.
  @inline(__always)
  mutating func recordLatency(_ nanoseconds: UInt64) {
    record(Swift.min(nanoseconds, Self.maximumLatency))
  }
}

extension LatencySummary {
  /// Summarizes a latency histogram.
  init(_ histogram: Histogram<UInt64>) {
    guard histogram.totalCount > 0 else {
      self = .empty
      return
    }
    self.init(
      count: Int(histogram.totalCount),
      meanNanoseconds: histogram.mean,
      p50Nanoseconds: histogram.valueAtPercentile(50),
      p90Nanoseconds: histogram.valueAtPercentile(90),
      p99Nanoseconds: histogram.valueAtPercentile(99),
      p999Nanoseconds: histogram.valueAtPercentile(99.9),
      maxNanoseconds: histogram.max,
      distribution: Self.curvePercentiles.map {
        PercentilePoint(percentile: $0, nanoseconds: histogram.valueAtPercentile($0))
      })
  }
}

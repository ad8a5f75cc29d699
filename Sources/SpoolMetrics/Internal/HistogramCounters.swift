import Metrics

/// The counters under which ``MetricsInstrumentation`` publishes one histogram of one action
/// case: Prometheus's layout, `<label>_bucket` per bound (cumulative, with an `le` dimension in
/// seconds, the last `+Inf`), `<label>_sum` in seconds and `<label>_count`.
final class HistogramCounters: Sendable {
  let buckets: [Counter]
  let sum: FloatingPointCounter
  let count: Counter

  init(
    label: String, bounds: [UInt64], dimensions: [(String, String)], factory: any MetricsFactory
  ) {
    let bounds = bounds.map { "\(Double($0) / 1e9)" } + ["+Inf"]
    buckets = bounds.map { bound in
      Counter(
        label: label + "_bucket", dimensions: dimensions + [(StoreMetricLabels.bucketBound, bound)],
        factory: factory)
    }
    sum = FloatingPointCounter(label: label + "_sum", dimensions: dimensions, factory: factory)
    count = Counter(label: label + "_count", dimensions: dimensions, factory: factory)
  }

  /// Adds `counts` (per bucket, not cumulative) to the counters.
  func publish(_ counts: PendingHistograms.Counts) {
    var cumulative: UInt64 = 0
    for (counter, bucketCount) in zip(buckets, counts.buckets) {
      cumulative &+= bucketCount
      // A bucket that gained nothing is left alone: the backend's value is already right.
      if cumulative > 0 { counter.increment(by: Int64(clamping: cumulative)) }
    }
    sum.increment(by: Double(counts.sumNanoseconds) / 1e9)
    count.increment(by: Int64(clamping: cumulative))
  }
}

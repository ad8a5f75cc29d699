import IssueReporting

/// How ``MetricsInstrumentation`` reports action latencies to swift-metrics.
///
/// ``histograms(buckets:publishEvery:fileID:filePath:line:column:)``, the default, counts
/// each action's queue wait and reduce time into buckets inside the instrumentation and
/// publishes the counts in batches, as the `Counter`s of a Prometheus histogram (`…_bucket`
/// with an `le` dimension, `…_sum`, `…_count`): an action costs a case lookup and two bucket
/// increments in counters of its thread's own, with no lock, whatever the backend. ``timers`` records both times of every action in a
/// swift-metrics `Timer`, for backends that aggregate timings themselves (StatsD, OpenTelemetry),
/// at the backend's cost per observation.
///
/// ```swift
/// let metrics = MetricsInstrumentation<Checkout.Action>(
///   store: "checkout",
///   recording: .histograms(buckets: [.microseconds(1), .microseconds(10), .milliseconds(1)])
/// )
/// ```
public struct MetricsRecording: Sendable, Hashable {
  enum Kind: Hashable {
    case timers
    /// Upper bounds in nanoseconds, strictly increasing, and the publishing interval.
    case histograms(bounds: [UInt64], interval: Duration)
  }

  let kind: Kind

  /// One swift-metrics `Timer` observation per action for queue wait, and one for reduce time.
  ///
  /// ```swift
  /// let metrics = MetricsInstrumentation<Checkout.Action>(store: "checkout", recording: .timers)
  /// ```
  public static var timers: MetricsRecording { MetricsRecording(kind: .timers) }

  /// The default buckets of
  /// ``histograms(buckets:publishEvery:fileID:filePath:line:column:)``: from 100 ns to 10 s, three
  /// per decade below a millisecond, where actions spend their time.
  ///
  /// ```swift
  /// let buckets = MetricsRecording.defaultBuckets + [.seconds(60)]
  /// ```
  public static var defaultBuckets: [Duration] {
    [
      .nanoseconds(100), .nanoseconds(250), .nanoseconds(500),
      .microseconds(1), .microseconds(2.5), .microseconds(5),
      .microseconds(10), .microseconds(25), .microseconds(50),
      .microseconds(100), .microseconds(250), .microseconds(500),
      .milliseconds(1), .milliseconds(10), .milliseconds(100),
      .seconds(1), .seconds(10),
    ]
  }

  /// Bucket counts kept per action case and published as counters every `interval`.
  ///
  /// Each time is counted in the first bucket whose bound it does not exceed (and in `+Inf`
  /// past the last); a Prometheus scrape sees the cumulative `…_bucket{le="…"}` counters that
  /// `histogram_quantile` reads, with `…_sum` in seconds and `…_count`. The counts reach the
  /// backend about `interval` after the action, or at once through
  /// ``MetricsInstrumentation/publish()``, which a `/metrics` handler calls before it renders:
  /// it publishes every action whose reduce returned before the call. A publication's `…_count`
  /// and `…_bucket` counters always agree; its `…_sum` may leave out the times of actions being
  /// counted at that moment, which the next publication adds. Publishing stops about two
  /// intervals after the last action, so nothing runs while no action arrives.
  ///
  /// A bound that is not positive, or an interval that is not, is reported as a misuse (as
  /// Spool reports misuse: a test failure under a test runner, a message otherwise) and left
  /// out: the default buckets stand in for a list with no positive bound, one second for the
  /// interval.
  ///
  /// - Parameters:
  ///   - buckets: The upper bounds; sorted and deduplicated here.
  ///   - interval: How long counts may wait before they are published.
  ///   - fileID: The file ID a misuse report names; the caller's by default.
  ///   - filePath: The file path a misuse report names; the caller's by default.
  ///   - line: The line a misuse report names; the caller's by default.
  ///   - column: The column a misuse report names; the caller's by default.
  ///
  /// ```swift
  /// let metrics = MetricsInstrumentation<Checkout.Action>(
  ///   store: "checkout", recording: .histograms(publishEvery: .milliseconds(250)))
  /// ```
  public static func histograms(
    buckets: [Duration] = defaultBuckets,
    publishEvery interval: Duration = .seconds(1),
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> MetricsRecording {
    func misuse(_ message: String) {
      reportIssue(
        "MetricsRecording.histograms: \(message)",
        fileID: fileID, filePath: filePath, line: line, column: column)
    }
    for bound in buckets where bound <= .zero {
      misuse("the bucket bound \(bound) is not positive; it is left out.")
    }
    var bounds = Set(buckets.compactMap(nanoseconds(of:))).sorted()
    if bounds.isEmpty {
      misuse("no bucket bound is positive; the default buckets are used.")
      bounds = Set(defaultBuckets.compactMap(nanoseconds(of:))).sorted()
    }
    var interval = interval
    if interval <= .zero {
      misuse("the interval \(interval) is not positive; 1 second is used.")
      interval = .seconds(1)
    }
    return MetricsRecording(kind: .histograms(bounds: bounds, interval: interval))
  }

  /// `duration` in whole nanoseconds, rounded up; `nil` unless positive.
  static func nanoseconds(of duration: Duration) -> UInt64? {
    guard duration > .zero else { return nil }
    let (seconds, attoseconds) = duration.components
    let (whole, extra) = attoseconds.quotientAndRemainder(dividingBy: 1_000_000_000)
    let nanoseconds = UInt64(clamping: seconds).multipliedReportingOverflow(by: 1_000_000_000)
    guard !nanoseconds.overflow else { return .max }
    let total = nanoseconds.partialValue.addingReportingOverflow(
      UInt64(whole) + (extra > 0 ? 1 : 0))
    return total.overflow ? .max : total.partialValue
  }
}

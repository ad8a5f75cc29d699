/// The labels of the metrics that ``MetricsInstrumentation`` reports, and of their dimensions.
///
/// Backends that export to Prometheus use the labels as metric names. With
/// ``MetricsRecording/timers``, a Prometheus backend whose default histogram buckets start in
/// milliseconds needs finer buckets for the two timers (see <doc:SpoolMetrics>).
///
/// ```swift
/// let reduceCount = try testMetrics.expectCounter(
///   StoreMetricLabels.reduce + "_count",
///   [(StoreMetricLabels.store, "checkout"), (StoreMetricLabels.action, "tap")]
/// )
/// ```
public enum StoreMetricLabels {
  /// Per action case, the time from `send`/`enqueue` to the start of the action's reduce: a
  /// histogram, published as the counters `…_bucket` (with ``bucketBound``), `…_sum` and
  /// `…_count`, or with ``MetricsRecording/timers`` a `Timer` of this label.
  public static let queueWait = "spool_action_queue_wait_seconds"
  /// Per action case, the time its reduce took, published as ``queueWait`` is.
  public static let reduce = "spool_action_reduce_seconds"
  /// A `Counter` per action case: every action reduced, timed or not. Reported only by an
  /// instrumentation that samples (`MetricsInstrumentation(store:sampling:)`), whose
  /// histograms then count the timed actions alone.
  public static let actions = "spool_actions_total"
  /// A `Counter` per action case and outcome: effects that ended.
  public static let effects = "spool_effects_total"
  /// A `Meter` per store: effects started and not yet ended.
  public static let runningEffects = "spool_effects_running"

  /// The dimension naming the store: the label given to the instrumentation.
  public static let store = "store"
  /// The dimension naming the action case, nested cases flattened as `child(.row(.toggle))`.
  public static let action = "action"
  /// The dimension naming an effect's outcome: `finished`, `cancelled` or `failed`.
  public static let outcome = "outcome"
  /// The dimension of a histogram's `…_bucket` counter: its upper bound in seconds, as
  /// Prometheus writes it (`1e-06`, `0.001`, `+Inf`).
  public static let bucketBound = "le"
}

/// The labels of the metrics that ``MetricsInstrumentation`` reports, and of their dimensions.
///
/// Backends that export to Prometheus use the labels as metric names; a Prometheus backend
/// whose default histogram buckets start in milliseconds needs finer buckets for these timers
/// (see <doc:SpoolMetrics>).
///
/// ```swift
/// let reduce = try testMetrics.expectTimer(
///   StoreMetricLabels.reduce,
///   [(StoreMetricLabels.store, "checkout"), (StoreMetricLabels.action, "tap")]
/// )
/// ```
public enum StoreMetricLabels {
  /// A `Timer` per action case: from `send`/`enqueue` to the start of the action's reduce.
  public static let queueWait = "spool_action_queue_wait_seconds"
  /// A `Timer` per action case: the time its reduce took.
  public static let reduce = "spool_action_reduce_seconds"
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
}

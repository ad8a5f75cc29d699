/// The latency of one action case: how long its actions waited in the queue and how long their
/// reduce took.
///
/// ```swift
/// for row in workload.actionCases {
///   print(row.label, row.count, row.reduce.p99Nanoseconds)
/// }
/// ```
public struct ActionCaseReport: Codable, Sendable, Equatable {
  /// The case path, `incrementButtonTapped` or `child(.row(.toggle))`.
  public var label: String
  /// Actions of this case reduced.
  public var count: Int
  /// From enqueue to the start of reduce.
  public var queueWait: LatencySummary
  /// From the start to the end of reduce.
  public var reduce: LatencySummary

  /// Creates a row of the latency table.
  ///
  /// ```swift
  /// let row = ActionCaseReport(label: "tap", count: 0, queueWait: .empty, reduce: .empty)
  /// ```
  public init(label: String, count: Int, queueWait: LatencySummary, reduce: LatencySummary) {
    self.label = label
    self.count = count
    self.queueWait = queueWait
    self.reduce = reduce
  }
}

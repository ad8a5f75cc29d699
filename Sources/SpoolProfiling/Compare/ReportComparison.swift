import Foundation

/// The comparison of two reports, per workload: throughput, and per action case the median
/// and 99th percentile of reduce time.
///
/// Workloads match by name and action cases by label; what is only in one report is listed,
/// never counted as a regression. A ratio is new / base. Latency regresses when its ratio is
/// above `1 + threshold`; throughput when its ratio is below `1 - threshold`.
///
/// Ratios of reports made on different machines measure the machines as much as the code:
/// ``machineDifferences`` lists what tells the two apart (processor model, cores, cross-core
/// round trip, the clock and what a read of it costs), and ``text()`` then begins with a
/// warning.
///
/// ```swift
/// let comparison = ReportComparison(
///   base: try Report.load(from: "base.json"), new: try Report.load(from: "new.json"),
///   threshold: RegressionThreshold(fraction: 0.1)
/// )
/// print(comparison.text())
/// if comparison.hasRegressions { exit(1) }
/// ```
public struct ReportComparison: Sendable, Equatable {
  /// One compared figure.
  public struct Row: Sendable, Equatable {
    /// The workload's name.
    public var workload: String
    /// `throughput`, or an action case label followed by the metric: `tap reduce p99`.
    public var subject: String
    /// The base report's figure (per second for throughput, nanoseconds for latency).
    public var base: Double
    /// The new report's figure.
    public var new: Double
    /// `new / base`, or `nil` when `base` is 0.
    public var ratio: Double?
    /// Whether the change passes the threshold in the bad direction.
    public var isRegression: Bool
  }

  /// The compared figures, in report order.
  public var rows: [Row]
  /// Workloads and action cases found in only one report: `only in new: counter/reset`.
  public var unmatched: [String]
  /// The threshold used.
  public var threshold: RegressionThreshold
  /// What tells the two reports' machines apart, `base vs new`: `cores 2 vs 4`; empty when
  /// they look alike (see ``ReportEnvironment``'s processor fields).
  public var machineDifferences: [String]

  /// Whether any row is a regression.
  public var hasRegressions: Bool { rows.contains(where: \.isRegression) }

  /// Compares `new` against `base`.
  ///
  /// ```swift
  /// let comparison = ReportComparison(base: base, new: new, threshold: .init(fraction: 0.1))
  /// ```
  public init(base: Report, new: Report, threshold: RegressionThreshold) {
    self.threshold = threshold
    rows = []
    unmatched = []
    machineDifferences = base.environment.machineDifferences(from: new.environment)
    let newWorkloads = Dictionary(new.workloads.map { ($0.name, $0) }) { first, _ in first }
    let baseNames = Set(base.workloads.map(\.name))
    for baseWorkload in base.workloads {
      guard let newWorkload = newWorkloads[baseWorkload.name] else {
        unmatched.append("only in base: \(baseWorkload.name)")
        continue
      }
      compare(baseWorkload, newWorkload)
    }
    for workload in new.workloads where !baseNames.contains(workload.name) {
      unmatched.append("only in new: \(workload.name)")
    }
  }

  private mutating func compare(_ base: WorkloadReport, _ new: WorkloadReport) {
    rows.append(
      row(
        base.name, "throughput", base.throughputPerSecond, new.throughputPerSecond,
        higherIsBetter: true))
    let newCases = Dictionary(new.actionCases.map { ($0.label, $0) }) { first, _ in first }
    for baseCase in base.actionCases {
      guard let newCase = newCases[baseCase.label] else {
        unmatched.append("only in base: \(base.name)/\(baseCase.label)")
        continue
      }
      rows.append(
        row(
          base.name, "\(baseCase.label) reduce p50", Double(baseCase.reduce.p50Nanoseconds),
          Double(newCase.reduce.p50Nanoseconds), higherIsBetter: false))
      rows.append(
        row(
          base.name, "\(baseCase.label) reduce p99", Double(baseCase.reduce.p99Nanoseconds),
          Double(newCase.reduce.p99Nanoseconds), higherIsBetter: false))
    }
    let baseLabels = Set(base.actionCases.map(\.label))
    for newCase in new.actionCases where !baseLabels.contains(newCase.label) {
      unmatched.append("only in new: \(new.name)/\(newCase.label)")
    }
  }

  private func row(
    _ workload: String, _ subject: String, _ base: Double, _ new: Double, higherIsBetter: Bool
  ) -> Row {
    let ratio: Double? = base > 0 ? new / base : (new == 0 ? 1 : nil)
    let isRegression: Bool
    if let ratio {
      isRegression = higherIsBetter
        ? ratio < 1 - threshold.fraction : ratio > 1 + threshold.fraction
    } else {
      isRegression = false
    }
    return Row(
      workload: workload, subject: subject, base: base, new: new, ratio: ratio,
      isRegression: isRegression)
  }

  /// The comparison as a terminal table, regressions marked `REGRESSION`, then a verdict line;
  /// first a warning line when the reports come from different machines.
  ///
  /// ```swift
  /// print(comparison.text())
  /// ```
  public func text() -> String {
    var lines = TextTable.render(
      header: ["workload", "figure", "base", "new", "new/base", ""],
      rows: rows.map { row in
        let isThroughput = row.subject == "throughput"
        func figure(_ value: Double) -> String {
          isThroughput ? DurationText.rate(value) : DurationText.nanoseconds(value)
        }
        return [
          row.workload, row.subject, figure(row.base), figure(row.new),
          row.ratio.map { String(format: "%.2fx", $0) } ?? "n/a",
          row.isRegression ? "REGRESSION" : "",
        ]
      }, textColumns: 2)
    lines.append(contentsOf: unmatched)
    if !machineDifferences.isEmpty {
      lines.insert(
        "warning: the reports come from different machines: "
          + machineDifferences.joined(separator: ", ") + "; their ratios are not comparable",
        at: 0)
    }
    let count = rows.filter(\.isRegression).count
    lines.append(
      count == 0
        ? "no regressions beyond \(threshold)"
        : "\(count) regression\(count == 1 ? "" : "s") beyond \(threshold)")
    return lines.joined(separator: "\n") + "\n"
  }
}

import Foundation

extension Report {
  /// The terminal table: environment (``ReportEnvironment/headerLines()``), then per workload
  /// its figures, baselines, the latency of each action case (queue wait and reduce) and the
  /// effects.
  func tableText() -> String {
    var lines = environment.headerLines()
    for workload in workloads {
      lines.append("")
      lines.append(contentsOf: Self.lines(for: workload))
    }
    return lines.joined(separator: "\n") + "\n"
  }

  private static func lines(for workload: WorkloadReport) -> [String] {
    var lines: [String] = []
    let parameters = workload.parameters.sorted { $0.key < $1.key }
      .map { "\($0.key)=\($0.value)" }.joined(separator: " ")
    lines.append("== \(workload.name)" + (parameters.isEmpty ? "" : " (\(parameters))"))
    var summary = [
      "\(workload.actions) actions",
      "\(DurationText.nanoseconds(workload.durationSeconds * 1e9))",
      DurationText.rate(workload.throughputPerSecond),
    ]
    if let peak = workload.peakRSSBytes { summary.append("peak RSS \(DurationText.bytes(peak))") }
    if let backend = workload.ioBackend { summary.append("I/O \(backend)") }
    if let interval = workload.timingSampleInterval, interval > 1 {
      summary.append("timed 1 in \(interval)")
    }
    lines.append(summary.joined(separator: " · "))
    for baseline in workload.baselines {
      let ratio = baseline.throughputPerSecond > 0
        ? workload.throughputPerSecond / baseline.throughputPerSecond : 0
      lines.append(
        "  vs \(baseline.name): \(DurationText.rate(baseline.throughputPerSecond))"
          + " (spool at \(String(format: "%.2f", ratio))x)")
    }
    if let timeline = workload.timeline {
      lines.append("")
      lines.append(contentsOf: timeline.summaryLines())
    }
    if !workload.actionCases.isEmpty {
      let header = ["action case", "count", "mean", "p50", "p90", "p99", "p99.9", "max"]
      for (title, pick) in [
        ("queue wait", \ActionCaseReport.queueWait), ("reduce", \ActionCaseReport.reduce),
      ] {
        lines.append("")
        if let interval = workload.timingSampleInterval, interval > 1 {
          lines.append("\(title) (sampled: 1 action in \(interval) timed; counts are exact)")
        } else {
          lines.append(title)
        }
        lines.append(
          contentsOf: TextTable.render(
            header: header,
            rows: workload.actionCases.map { row in
              [row.label, "\(row.count)"] + Self.cells(row[keyPath: pick])
            }))
      }
    }
    if !workload.effects.isEmpty {
      lines.append("")
      lines.append("effects")
      lines.append(
        contentsOf: TextTable.render(
          header: [
            "started by", "started", "finished", "cancelled", "failed", "life p50", "p99", "max",
          ],
          rows: workload.effects.map { row in
            [
              row.label, "\(row.started)", "\(row.finished)", "\(row.cancelled)",
              "\(row.failed)", DurationText.nanoseconds(row.lifetime.p50Nanoseconds),
              DurationText.nanoseconds(row.lifetime.p99Nanoseconds),
              DurationText.nanoseconds(row.lifetime.maxNanoseconds),
            ]
          }))
    }
    return lines
  }

  private static func cells(_ summary: LatencySummary) -> [String] {
    [
      DurationText.nanoseconds(summary.meanNanoseconds),
      DurationText.nanoseconds(summary.p50Nanoseconds),
      DurationText.nanoseconds(summary.p90Nanoseconds),
      DurationText.nanoseconds(summary.p99Nanoseconds),
      DurationText.nanoseconds(summary.p999Nanoseconds),
      DurationText.nanoseconds(summary.maxNanoseconds),
    ]
  }
}

/// Left-aligned text columns, right-aligned numbers, two spaces between columns.
enum TextTable {
  /// Renders rows under a header; the first `textColumns` columns are left-aligned.
  static func render(header: [String], rows: [[String]], textColumns: Int = 1) -> [String] {
    let all = [header] + rows
    let widths = header.indices.map { column in
      all.map { $0.indices.contains(column) ? $0[column].count : 0 }.max() ?? 0
    }
    return all.map { row in
      row.enumerated().map { column, cell in
        let padding = String(repeating: " ", count: widths[column] - cell.count)
        return column < textColumns ? cell + padding : padding + cell
      }.joined(separator: "  ").trimmingTrailingSpaces()
    }
  }
}

extension String {
  fileprivate func trimmingTrailingSpaces() -> String {
    var text = self
    while text.last == " " { text.removeLast() }
    return text
  }
}

/// The ways a ``Report`` can be written.
///
/// ```swift
/// let svg = report.rendered(as: .svg)
/// try report.write(to: "counter.svg", format: .svg)
/// ```
public enum ReportFormat: String, Sendable, CaseIterable {
  /// A terminal table per workload: throughput, baselines, latency per case, effects.
  case table
  /// Versioned JSON, the source of truth; ``Report/load(from:)`` reads it back.
  case json
  /// Chrome trace-event JSON of the trace sample; opens in Perfetto or `chrome://tracing`.
  case trace
  /// An SVG plot of each workload's latency percentile distribution, one line per case.
  case svg
}

extension Report {
  /// The report in `format`, as UTF-8 bytes.
  ///
  /// ```swift
  /// let table = String(decoding: report.rendered(as: .table), as: UTF8.self)
  /// ```
  public func rendered(as format: ReportFormat) -> [UInt8] {
    switch format {
    case .table: Array(tableText().utf8)
    case .json: jsonBytes()
    case .trace: chromeTraceBytes()
    case .svg: Array(percentilePlotSVG().utf8)
    }
  }

  /// Writes the report in `format` to `path`, atomically (temporary file, then rename).
  ///
  /// - Throws: ``ReportFileError`` naming `path` and the failing operation.
  ///
  /// ```swift
  /// try report.write(to: "Profiles/counter.json", format: .json)
  /// ```
  public func write(to path: String, format: ReportFormat) throws(ReportFileError) {
    try AtomicFile.write(rendered(as: format), to: path)
  }
}

import ArgumentParser
import Foundation
import SpoolProfiling

/// `spool report FILE.json [--format table|json|trace|svg] [--output PATH]`.
///
/// Prints the report as a table, or converts it. Output goes to standard output unless
/// `--output PATH` is given, in which case the file is written atomically. Exit status: 0, or
/// 1 with a one-line `error: FILE: problem` on standard error; 64 with one line for an unknown
/// `--format`.
struct Report: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Print a latency report, or convert it to JSON, a Chrome trace or an SVG plot.",
    discussion: """
      Reads a JSON report written by `spool bench --format json`. Output goes to standard \
      output, or to --output PATH (written atomically: temporary file, then rename).
      """
  )

  @Argument(help: "A JSON report file.")
  var file: String

  @Option(help: "Output format: table, json, trace (Chrome trace-event JSON) or svg.")
  var format: String = ReportFormat.table.rawValue

  @Option(name: .shortAndLong, help: "Write to this file instead of standard output.")
  var output: String?

  /// An unknown format is one line on standard error and exit status 64.
  func validate() throws {
    guard ReportFormat(rawValue: format) != nil else {
      let line =
        "error: unknown format '\(format)'; use one of: "
        + ReportFormat.allCases.map(\.rawValue).joined(separator: ", ") + "\n"
      FileHandle.standardError.write(Data(line.utf8))
      throw ExitCode(64)
    }
  }

  func run() async throws {
    let format = ReportFormat(rawValue: self.format) ?? .table
    do {
      let report = try SpoolProfiling.Report.load(from: file)
      if let output {
        try report.write(to: output, format: format)
      } else {
        FileHandle.standardOutput.write(Data(report.rendered(as: format)))
      }
    } catch {
      FileHandle.standardError.write(Data("error: \(error)\n".utf8))
      throw ExitCode.failure
    }
  }
}

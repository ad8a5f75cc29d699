import ArgumentParser
import Foundation
import SpoolProfiling

/// `spool compare BASE.json NEW.json [--threshold 10%]`.
///
/// Prints, per workload, the throughput ratio and per action case the reduce p50 / p99 ratios,
/// marking regressions. Exit status: 0 without regressions, 1 with any, 2 when a file cannot be
/// read (with a one-line `error: FILE: problem` on standard error), 64 for a bad `--threshold`
/// (one line too).
struct Compare: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Compare two latency reports and flag regressions.",
    discussion: """
      Latency regresses when new/base exceeds 1 + threshold; throughput when new/base falls \
      below 1 - threshold. Exit status: 0 no regression, 1 regressions, 2 unreadable input.
      """
  )

  @Argument(help: "The reference report.")
  var base: String

  @Argument(help: "The report to judge.")
  var new: String

  @Option(help: "The allowed change before a figure counts as a regression, e.g. 10%.")
  var threshold: String = "10%"

  /// A bad threshold is one line on standard error and exit status 64, as `spool bench`'s bad
  /// values are (a `ValidationError` would add the usage).
  func validate() throws {
    do {
      _ = try RegressionThreshold(parsing: threshold)
    } catch {
      FileHandle.standardError.write(Data("error: \(error)\n".utf8))
      throw ExitCode(64)
    }
  }

  func run() async throws {
    let comparison: ReportComparison
    do {
      comparison = ReportComparison(
        base: try SpoolProfiling.Report.load(from: base),
        new: try SpoolProfiling.Report.load(from: new),
        threshold: try RegressionThreshold(parsing: threshold))
    } catch {
      FileHandle.standardError.write(Data("error: \(error)\n".utf8))
      throw ExitCode(2)
    }
    FileHandle.standardOutput.write(Data(comparison.text().utf8))
    if comparison.hasRegressions { throw ExitCode.failure }
  }
}

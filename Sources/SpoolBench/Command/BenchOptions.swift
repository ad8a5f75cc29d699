import ArgumentParser
import SpoolProfiling

/// The options of `spool bench` and of every ``SpoolBenchmarkCommand``: one declaration, so that
/// a user's benchmark executable takes exactly what `spool bench` takes.
///
/// It has no `validate()`: ``BenchRunner`` checks the values, so that a wrong one ends with one
/// line on standard error rather than ArgumentParser's usage text.
package struct BenchOptions: ParsableArguments {
  @Argument(help: "Workloads to run (the standard set when none is named).")
  package var workloads: [String] = []

  @Option(help: "Volume of each workload: actions, round trips or reads (default: per workload).")
  package var actions: Int?

  @Option(help: "Concurrent producers for fan-in.")
  package var producers = 4

  @Flag(help: "Run Spool once more with a latency recorder and add per-action-case latencies.")
  package var profile = false

  @Option(help: "How many times each workload runs; medians are reported (soak runs once).")
  package var rounds = 3

  @Option(help: "How long soak runs: 500ms, 60s, 2m, 1h or plain seconds (default 60s).")
  package var duration: String?

  @Option(
    name: .shortAndLong,
    help: ArgumentHelp(
      "Folder the reports are written to, as <workload>-<UTC timestamp>.json; never "
        + "replaces a file (default: \(ReportFolder.defaultPath))."))
  package var output: String?

  @Flag(
    help: ArgumentHelp(
      "Write the committed reference reports instead: \(ReportFolder.referencePath)/"
        + "<workload>.json, replacing them. Run from the repository's root."))
  package var reference = false

  @Option(help: "What standard output gets: table (a summary) or json (the report).")
  package var format: BenchOutputFormat = .table

  @Flag(help: "List the workloads and exit.")
  package var list = false

  package init() {}
}

/// What the bench command prints on standard output.
package enum BenchOutputFormat: String, ExpressibleByArgument, CaseIterable, Sendable {
  case table
  case json
}

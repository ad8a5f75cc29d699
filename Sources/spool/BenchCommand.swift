import ArgumentParser
import SpoolBench
import SpoolWorkloads

/// `spool bench [WORKLOAD…] [--actions N] [--producers P] [--profile] [--rounds R]
/// [--duration D] [--output DIR | --reference] [--format table|json]`.
///
/// Measures the machine's cross-core round trip first (it goes into each report's
/// environment), then runs the named workloads (the standard set when none is named), each
/// beside its baselines measured in the same run, in three rounds by default (Spool's median
/// and the median of the rounds' ratios are reported, with every round's figures); shows a
/// progress bar on standard error when it is a terminal; writes one report per workload to
/// `DIR/<workload>-<UTC timestamp>.json` (`DIR` is `spool-reports` by default; a file is never
/// replaced: a name that exists gets `-2`, `-3`, …), or with `--reference` to
/// `Profiles/<workload>.json`, replacing the committed reference reports; prints a summary
/// table, or with `--format json` the whole report as JSON, on standard output. The folder is
/// checked before anything runs. Exit status: 0; 64 with one line on standard error for an
/// unknown workload or a wrong option value; 1 when a workload failed its checks (lost
/// actions, effects left running), a soak's timeline was not flat (its report is written
/// first), or the folder or a report could not be written.
///
/// The command is SpoolBench's, the one every `SpoolBenchmarkCommand` runs, given Spool's own
/// workloads (SpoolWorkloads' `Workload.all`).
struct Bench: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Run Spool's high-volume workloads beside their baselines and write reports.",
    discussion: """
      Workloads: \(Workload.all.map(\.name).joined(separator: ", ")). With none named, the \
      standard set runs at its default volumes: \
      \(Workload.standard.map(\.name).joined(separator: ", ")). Ratios in the summary are \
      Spool's throughput divided by the baseline's: above 1, Spool is faster. Each workload \
      runs --rounds times (Spool, then its baselines, each round); a ratio is the median of the \
      rounds' ratios, and the summary shows the rounds' ratios beside it. Compare figures \
      within one run only. soak runs only when named, for --duration, and fails when memory \
      or latency grew; file-io-cold (reads past the page cache) runs only when named. \
      Reports go to spool-reports/ (or --output DIR) under new, timestamped names, never \
      replacing a file; --reference writes the committed Profiles/<workload>.json instead.
      """
  )

  @OptionGroup var options: BenchOptions

  func run() async throws {
    let status = await BenchRunner(workloads: Workload.all, commandName: "spool bench")
      .run(options)
    if status != 0 { throw ExitCode(status) }
  }
}

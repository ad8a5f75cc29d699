import ArgumentParser

/// The command line of a ``SpoolBenchmarkCommand`` executable, for parsing and help: named
/// after the executable, with `spool bench`'s options.
struct BenchExecutableCommand: ParsableCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      commandName: CommandLine.arguments.first.map { path in
        String(path.split(separator: "/").last ?? Substring(path))
      },
      abstract: "Run this package's workloads beside their baselines and write reports.",
      discussion: """
        Takes the options of `spool bench` and behaves as it does; --list names the \
        workloads. Ratios in the summary are Spool's throughput divided by the baseline's: \
        above 1, Spool is faster. Reports go to spool-reports/ (or --output DIR) under new, \
        timestamped names, never replacing a file; read them with `spool report` and \
        `spool compare`.
        """
    )
  }

  @OptionGroup var options: BenchOptions
}

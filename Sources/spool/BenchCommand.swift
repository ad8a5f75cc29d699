import ArgumentParser
import Foundation
import SpoolProfiling
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
/// checked before anything runs. Exit status: 0, 1 when a workload failed its checks (lost
/// actions, effects left running), a soak's timeline was not flat (its report is written
/// first), or the folder or a report could not be written.
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

  @Argument(help: "Workloads to run (the standard set when none is named).")
  var workloads: [String] = []

  @Option(help: "Volume of each workload: actions, round trips or reads (default: per workload).")
  var actions: Int?

  @Option(help: "Concurrent producers for fan-in.")
  var producers = 4

  @Flag(help: "Run Spool once more with a latency recorder and add per-action-case latencies.")
  var profile = false

  @Option(help: "How many times each workload runs; medians are reported (soak runs once).")
  var rounds = 3

  @Option(help: "How long soak runs: 500ms, 60s, 2m, 1h or plain seconds (default 60s).")
  var duration: String?

  @Option(
    name: .shortAndLong,
    help: ArgumentHelp(
      "Folder the reports are written to, as <workload>-<UTC timestamp>.json; never "
        + "replaces a file (default: \(ReportFolder.defaultPath))."))
  var output: String?

  @Flag(
    help: ArgumentHelp(
      "Write the committed reference reports instead: \(ReportFolder.referencePath)/"
        + "<workload>.json, replacing them. Run from the repository's root."))
  var reference = false

  @Option(help: "What standard output gets: table (a summary) or json (the report).")
  var format: BenchOutputFormat = .table

  @Flag(help: "List the workloads and exit.")
  var list = false

  func validate() throws {
    let known = Set(Workload.all.map(\.name))
    for name in workloads where !known.contains(name) {
      throw ValidationError(
        "unknown workload '\(name)'; known: \(Workload.all.map(\.name).joined(separator: ", "))")
    }
    if let actions, actions < 1 { throw ValidationError("--actions must be at least 1") }
    if producers < 1 { throw ValidationError("--producers must be at least 1") }
    if rounds < 1 { throw ValidationError("--rounds must be at least 1") }
    if reference, let output {
      throw ValidationError(
        "--reference writes \(ReportFolder.referencePath)/<workload>.json and cannot be "
          + "combined with --output \(output)")
    }
    if output?.isEmpty == true { throw ValidationError("--output needs a folder") }
    if let duration {
      do {
        _ = try WorkloadDuration(parsing: duration)
      } catch {
        // One line naming the value, without the usage that a ValidationError prints.
        FileHandle.standardError.write(Data("error: \(error)\n".utf8))
        throw ExitCode.validationFailure
      }
      if !workloads.contains("soak") {
        throw ValidationError(
          "--duration applies to soak only: spool bench soak --duration \(duration)")
      }
    }
  }

  func run() async throws {
    if list {
      let width = (Workload.all.map(\.name.count).max() ?? 0) + 2
      for workload in Workload.all {
        let name = workload.name.padding(toLength: width, withPad: " ", startingAt: 0)
        let volume = workload.isStandard
          ? "default \(workload.defaultActions)"
          : "only when named; --duration 60s, windows of \(workload.defaultActions)"
        print("\(name)\(workload.summary) (\(volume))")
      }
      return
    }
    let folder = try preparedFolder()
    // Before any workload: the round trip is the machine's, not the machine after a run.
    let environment = ReportEnvironment.current(measuringCrossCoreLatency: true)
    let selected = workloads.isEmpty
      ? Workload.standard : workloads.compactMap { Workload.named($0) }
    let options = WorkloadOptions(
      actions: actions, producers: producers, profile: profile,
      duration: try duration.map { try WorkloadDuration(parsing: $0).duration }, rounds: rounds)
    let progress = BenchProgress()
    let bar = ProgressBar.startIfTerminal(progress)
    var reports: [WorkloadReport] = []
    do {
      for workload in selected {
        reports += try await workload.run(options, progress: progress)
      }
    } catch {
      await bar?.stop()
      FileHandle.standardError.write(Data("error: \(error)\n".utf8))
      throw ExitCode.failure
    }
    await bar?.stop()
    let report = SpoolProfiling.Report(environment: environment, workloads: reports)
    let paths: [String]
    do {
      paths = try folder.write(report)
    } catch {
      FileHandle.standardError.write(Data("error: \(error)\n".utf8))
      throw ExitCode.failure
    }
    switch format {
    case .table:
      FileHandle.standardOutput.write(Data(BenchSummary.text(report).utf8))
      FileHandle.standardOutput.write(Data("\nreports: \(paths.joined(separator: ", "))\n".utf8))
    case .json:
      FileHandle.standardOutput.write(Data(report.rendered(as: .json)))
      FileHandle.standardError.write(Data("reports: \(paths.joined(separator: ", "))\n".utf8))
    }
    let grown = report.workloads.compactMap { workload in
      workload.timeline.flatMap { $0.flatness.outcome == .grew ? (workload.name, $0) : nil }
    }
    for (name, timeline) in grown {
      let what = timeline.flatness.grown.map(\.description).joined(separator: "; ")
      FileHandle.standardError.write(Data("error: \(name) · flatness: \(what)\n".utf8))
    }
    if !grown.isEmpty { throw ExitCode.failure }
  }

  /// The folder the reports go to, created if needed and checked for writing before anything
  /// runs, so that an unwritable folder costs no run; a one-line error and exit status 1 when
  /// it cannot be used.
  private func preparedFolder() throws -> ReportFolder {
    let folder = reference
      ? ReportFolder(path: ReportFolder.referencePath, naming: .reference)
      : ReportFolder(path: output ?? ReportFolder.defaultPath, naming: .timestamped)
    var isFolder: ObjCBool = false
    if reference,
      !FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder)
        || !isFolder.boolValue
    {
      // Creating it would put reference reports wherever the command happened to run.
      FileHandle.standardError.write(
        Data(
          ("error: no \(folder.path)/ folder here; --reference replaces the repository's "
            + "reference reports: run it from the repository's root\n").utf8))
      throw ExitCode.failure
    }
    do {
      try folder.prepare()
    } catch {
      FileHandle.standardError.write(Data("error: \(error)\n".utf8))
      throw ExitCode.failure
    }
    return folder
  }
}

/// What `spool bench` prints on standard output.
enum BenchOutputFormat: String, ExpressibleByArgument, CaseIterable {
  case table
  case json
}

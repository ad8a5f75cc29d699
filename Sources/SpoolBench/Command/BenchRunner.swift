import Foundation
import SpoolProfiling

/// The bench command: `spool bench` and every ``SpoolBenchmarkCommand`` run this, with their
/// own workloads.
///
/// Measures the machine's cross-core round trip first (it goes into each report's environment),
/// then runs the named workloads (the standard set when none is named), each beside its
/// baselines; shows a progress bar on standard error when it is a terminal; writes one report
/// per workload to `DIR/<workload>-<UTC timestamp>.json` (`DIR` is `spool-reports` by default;
/// a file is never replaced: a name that exists gets `-2`, `-3`, …), or with `--reference` to
/// `Profiles/<workload>.json`; prints a summary table, or with `--format json` the whole report,
/// on standard output. Every value and the folder are checked before anything runs.
///
/// Exit status: 0; 64 for a wrong option value or workload name (one line on standard error);
/// 1 when a workload failed its checks, a soak's timeline was not flat (its report is written
/// first), or the folder or a report could not be written.
package struct BenchRunner: Sendable {
  /// Every workload the command knows, in the order it runs them.
  package var workloads: [Workload]
  /// How the command is invoked, for messages: `spool bench`, `CheckoutBenchmarks`.
  package var commandName: String
  package var console: BenchConsole

  package init(workloads: [Workload], commandName: String, console: BenchConsole = .standard) {
    self.workloads = workloads
    self.commandName = commandName
    self.console = console
  }

  /// The exit status of a wrong option value: `EX_USAGE`, as ArgumentParser's.
  package static let usageStatus: Int32 = 64

  /// Parses `arguments` (without the executable's name) and runs; returns the exit status.
  package func run(arguments: [String]) async -> Int32 {
    let options: BenchOptions
    do {
      options = try BenchExecutableCommand.parse(arguments).options
    } catch {
      let status = BenchExecutableCommand.exitCode(for: error).rawValue
      let message = BenchExecutableCommand.fullMessage(for: error)
      if status == 0 {
        console.print(message + "\n")
      } else {
        console.error(Array((message + "\n").utf8))
      }
      return status
    }
    return await run(options)
  }

  /// Runs with parsed `options`; returns the exit status.
  package func run(_ options: BenchOptions) async -> Int32 {
    if let problem = definitionProblem() {
      console.fail(problem)
      return 1
    }
    if let problem = problem(with: options) {
      console.fail(problem)
      return Self.usageStatus
    }
    if options.list {
      list()
      return 0
    }
    guard let folder = preparedFolder(options) else { return 1 }
    // Before any workload: the figures are the machine's, not the machine after a run.
    let environment = ReportEnvironment.current(
      measuringCrossCoreLatency: true, measuringClockReads: true)
    let selected = options.workloads.isEmpty
      ? workloads.filter(\.isStandard)
      : options.workloads.compactMap { name in workloads.first { $0.name == name } }
    let workloadOptions = WorkloadOptions(
      actions: options.actions, producers: options.producers, profile: options.profile,
      duration: options.duration.flatMap { try? WorkloadDuration(parsing: $0).duration },
      rounds: options.rounds)
    let progress = BenchProgress()
    let bar = console.showsProgress ? ProgressBar.start(progress) : nil
    var reports: [WorkloadReport] = []
    do {
      for workload in selected {
        reports += try await workload.run(workloadOptions, progress: progress)
      }
    } catch {
      await bar?.stop()
      console.fail("\(error)")
      return 1
    }
    await bar?.stop()
    let report = Report(environment: environment, workloads: reports)
    let paths: [String]
    do {
      paths = try folder.write(report)
    } catch {
      console.fail("\(error)")
      return 1
    }
    switch options.format {
    case .table:
      console.print(BenchSummary.text(report))
      console.print("\nreports: \(paths.joined(separator: ", "))\n")
    case .json:
      console.output(report.rendered(as: .json))
      console.error(Array("reports: \(paths.joined(separator: ", "))\n".utf8))
    }
    let grown = report.workloads.compactMap { workload in
      workload.timeline.flatMap { $0.flatness.outcome == .grew ? (workload.name, $0) : nil }
    }
    for (name, timeline) in grown {
      let what = timeline.flatness.grown.map(\.description).joined(separator: "; ")
      console.fail("\(name) · flatness: \(what)")
    }
    return grown.isEmpty ? 0 : 1
  }

  /// What is wrong with the command's own workloads (a programming error of its author, found
  /// before any option is looked at), if anything: a name that is empty, holds a `/` (it names
  /// report files), or is used twice.
  package func definitionProblem() -> String? {
    var seen: Set<String> = []
    for workload in workloads {
      if workload.name.isEmpty || workload.name.contains("/") || workload.name.hasPrefix(".") {
        return "workload name '\(workload.name)' cannot name a report file; use letters, digits "
          + "and '-'"
      }
      if !seen.insert(workload.name).inserted {
        return "two workloads are named '\(workload.name)'; names must be unique"
      }
      if workload.defaultActions < 1 {
        return "workload '\(workload.name)' has defaultActions \(workload.defaultActions); "
          + "it must be at least 1"
      }
    }
    return nil
  }

  /// What is wrong with the values of `options`, if anything, in one line.
  func problem(with options: BenchOptions) -> String? {
    let known = workloads.map(\.name)
    for name in options.workloads where !known.contains(name) {
      return "unknown workload '\(name)'; known: \(known.joined(separator: ", "))"
    }
    if let actions = options.actions, actions < 1 {
      return "--actions must be at least 1 (got \(actions))"
    }
    if options.producers < 1 {
      return "--producers must be at least 1 (got \(options.producers))"
    }
    if options.rounds < 1 { return "--rounds must be at least 1 (got \(options.rounds))" }
    if options.reference, let output = options.output {
      return "--reference writes \(ReportFolder.referencePath)/<workload>.json and cannot be "
        + "combined with --output \(output)"
    }
    if options.output?.isEmpty == true { return "--output needs a folder" }
    if let duration = options.duration {
      do {
        _ = try WorkloadDuration(parsing: duration)
      } catch {
        return "\(error)"
      }
      let takers = workloads.filter(\.takesDuration).map(\.name)
      if !options.workloads.contains(where: takers.contains) {
        guard let first = takers.first else {
          return "--duration applies to no workload of \(commandName)"
        }
        return "--duration applies to \(takers.joined(separator: ", ")) only: "
          + "\(commandName) \(first) --duration \(duration)"
      }
    }
    return nil
  }

  /// `--list`: one line per workload, its summary and default volume.
  func list() {
    let width = (workloads.map(\.name.count).max() ?? 0) + 2
    for workload in workloads {
      let name = workload.name.padding(toLength: width, withPad: " ", startingAt: 0)
      let volume = workload.isStandard
        ? "default \(workload.defaultActions)"
        : "only when named; --duration 60s, windows of \(workload.defaultActions)"
      console.print("\(name)\(workload.summary) (\(volume))\n")
    }
  }

  /// The folder the reports go to, created if needed and checked for writing before anything
  /// runs, so that an unwritable folder costs no run; `nil`, after a one-line error, when it
  /// cannot be used.
  private func preparedFolder(_ options: BenchOptions) -> ReportFolder? {
    let folder = options.reference
      ? ReportFolder(path: ReportFolder.referencePath, naming: .reference)
      : ReportFolder(path: options.output ?? ReportFolder.defaultPath, naming: .timestamped)
    var isFolder: ObjCBool = false
    if options.reference,
      !FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder)
        || !isFolder.boolValue
    {
      // Creating it would put reference reports wherever the command happened to run.
      console.fail(
        "no \(folder.path)/ folder here; --reference replaces the repository's reference "
          + "reports: run it from the repository's root")
      return nil
    }
    do {
      try folder.prepare()
    } catch {
      console.fail("\(error)")
      return nil
    }
    return folder
  }
}

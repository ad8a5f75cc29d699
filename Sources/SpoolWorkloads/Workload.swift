import SpoolProfiling

/// A named high-volume workload: a real Spool feature driven at volume, measured beside the
/// same work done without Spool (the baselines), in the same run.
///
/// Each workload does its setup (the store built, the file written, the server listening)
/// before it starts the clock, checks its counts after each measurement (a lost action throws
/// ``WorkloadCheckError`` instead of reporting a figure) and returns its reports, usually one.
///
/// ```swift
/// let progress = BenchProgress()
/// for workload in Workload.standard {
///   let reports = try await workload.run(WorkloadOptions(), progress: progress)
///   for report in reports {
///     print(report.name, report.throughputPerSecond)
///   }
/// }
/// ```
public struct Workload: Sendable {
  /// The name `spool bench` knows it by, `counter`.
  public let name: String
  /// One line: what it drives.
  public let summary: String
  /// The volume it runs without `--actions`.
  public let defaultActions: Int
  /// Whether `spool bench` runs it when no workload is named (the soak runs only when named).
  public let isStandard: Bool
  /// Whether it runs ``WorkloadOptions/rounds`` times when asked (the soak, a timeline of one
  /// long run, runs once).
  public let runsInRounds: Bool
  let body: @Sendable (WorkloadRun) async throws -> [WorkloadReport]

  init(
    name: String, summary: String, defaultActions: Int, isStandard: Bool = true,
    runsInRounds: Bool = true,
    body: @escaping @Sendable (WorkloadRun) async throws -> [WorkloadReport]
  ) {
    self.name = name
    self.summary = summary
    self.defaultActions = defaultActions
    self.isStandard = isStandard
    self.runsInRounds = runsInRounds
    self.body = body
  }

  /// Runs the workload and returns its reports.
  ///
  /// With ``WorkloadOptions/rounds`` above 1 it runs that many times in a row (each round
  /// measures Spool, then its baselines) and merges each report's rounds into one
  /// (``WorkloadReport/mergingRounds(_:)``: medians, with every round's figures); only the
  /// last round is profiled.
  ///
  /// - Throws: ``WorkloadCheckError`` when a run lost actions or left effects running, or the
  ///   I/O error of a setup that failed.
  ///
  /// ```swift
  /// let reports = try await Workload.named("effects")!.run(
  ///   WorkloadOptions(actions: 10_000), progress: BenchProgress())
  /// ```
  public func run(
    _ options: WorkloadOptions, progress: BenchProgress
  ) async throws -> [WorkloadReport] {
    let rounds = runsInRounds ? options.rounds : 1
    var results: [[WorkloadReport]] = []
    for round in 1...rounds {
      var roundOptions = options
      roundOptions.profile = options.profile && round == rounds
      let run = WorkloadRun(
        workload: name, actions: max(1, options.actions ?? defaultActions),
        options: roundOptions, progress: progress,
        round: rounds > 1 ? "round \(round)/\(rounds)" : nil)
      results.append(try await body(run))
    }
    guard rounds > 1 else { return results[0] }
    return results[0].indices.map { index in
      var merged = WorkloadReport.mergingRounds(results.map { $0[index] })
      // The memory before the run, like the peak, of the first round.
      let first = results[0][index]
      merged.parameters["residentBytesBefore"] = first.parameters["residentBytesBefore"]
      return merged
    }
  }
}

extension Workload {
  /// Every workload, in the order `spool bench` runs them.
  ///
  /// ```swift
  /// print(Workload.all.map(\.name).joined(separator: ", "))
  /// ```
  public static let all: [Workload] = [
    CounterWorkloads.counter,
    CounterWorkloads.counterSend,
    CounterWorkloads.fanIn,
    EffectsWorkload.workload,
    CancellationWorkload.workload,
    SearchWorkload.workload,
    FileIOWorkload.workload,
    FileIOWorkload.cold,
    EchoWorkload.workload,
    TodosWorkload.workload,
    InstrumentationWorkload.workload,
    JournalWorkload.workload,
    SoakWorkload.workload,
  ]

  /// The set `spool bench` runs when no workload is named: all of them but the soak, at their
  /// defaults, chosen to finish in under two minutes on a 2-core machine.
  ///
  /// ```swift
  /// let names = Workload.standard.map(\.name)
  /// ```
  public static var standard: [Workload] { all.filter(\.isStandard) }

  /// The workload called `name`, if any.
  ///
  /// ```swift
  /// let counter = Workload.named("counter")
  /// ```
  public static func named(_ name: String) -> Workload? {
    all.first { $0.name == name }
  }
}

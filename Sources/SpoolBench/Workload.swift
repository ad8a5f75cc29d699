import SpoolProfiling

/// A named high-volume workload: a feature driven at volume, measured beside the same work
/// done without Spool (the baselines), in the same run.
///
/// Each workload does its setup (the store built, the file written, the server listening)
/// before it starts the clock, checks its counts after each measurement (a lost action throws
/// ``WorkloadCheckError`` instead of reporting a figure) and returns its reports, usually one.
/// Build one of your own with
/// ``init(_:summary:defaultActions:initialState:reducer:withDependencies:driver:check:baselines:)``
/// and run it from a ``SpoolBenchmarkCommand``; `spool bench`'s own workloads are built on the
/// same harness.
///
/// ```swift
/// let counter = Workload(
///   "counter", summary: "one producer enqueues increments", defaultActions: 1_000_000,
///   initialState: Counter.State(), reducer: { Counter() },
///   driver: .enqueue { _ in .incrementButtonTapped },
///   check: { state, actions in
///     guard state.count == actions else {
///       throw WorkloadCheckError("counted \(state.count), expected \(actions)")
///     }
///   })
/// let reports = try await counter.run(WorkloadOptions(actions: 10_000), progress: BenchProgress())
/// print(reports[0].throughputPerSecond)
/// ```
public struct Workload: Sendable {
  /// The name the command line knows it by, `counter`; its reports are named after it.
  public let name: String
  /// One line: what it drives.
  public let summary: String
  /// The volume it runs without `--actions`: actions, round trips, reads.
  public let defaultActions: Int
  /// Whether the command runs it when no workload is named (`spool bench`'s soak runs only
  /// when named).
  public let isStandard: Bool
  /// Whether it runs ``WorkloadOptions/rounds`` times when asked (the soak, a timeline of one
  /// long run, runs once).
  public let runsInRounds: Bool
  /// Whether it reads ``WorkloadOptions/duration`` (`--duration` is refused for the others).
  package let takesDuration: Bool
  package let body: @Sendable (WorkloadRun) async throws -> [WorkloadReport]

  /// A workload whose body does everything itself: Spool's own workloads, which measure
  /// several stores and baselines of their own making through ``WorkloadRun``.
  package init(
    name: String, summary: String, defaultActions: Int, isStandard: Bool = true,
    runsInRounds: Bool = true, takesDuration: Bool = false,
    body: @escaping @Sendable (WorkloadRun) async throws -> [WorkloadReport]
  ) {
    self.name = name
    self.summary = summary
    self.defaultActions = defaultActions
    self.isStandard = isStandard
    self.runsInRounds = runsInRounds
    self.takesDuration = takesDuration
    self.body = body
  }

  /// Runs the workload and returns its reports.
  ///
  /// With ``WorkloadOptions/rounds`` above 1 it runs that many times in a row (each round
  /// measures Spool, then its baselines) and merges each report's rounds into one
  /// (SpoolProfiling's `WorkloadReport.mergingRounds(_:)`: medians, with every round's
  /// figures); only the last round is profiled.
  ///
  /// - Throws: ``WorkloadCheckError`` when a run lost actions or left effects running, or the
  ///   I/O error of a setup that failed.
  ///
  /// ```swift
  /// let reports = try await checkout.run(
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

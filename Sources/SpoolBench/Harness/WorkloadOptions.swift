/// What the bench command (`spool bench`, a ``SpoolBenchmarkCommand``) asks of every workload
/// it runs: its command-line options.
///
/// ```swift
/// let options = WorkloadOptions(actions: 100_000, producers: 4, profile: true)
/// ```
public struct WorkloadOptions: Sendable, Equatable {
  /// The volume of each workload (actions, round trips, reads); `nil` for each workload's
  /// default (``Workload/defaultActions``).
  public var actions: Int?
  /// Concurrent producers (`--producers`): for `spool bench fan-in`, and for a
  /// ``WorkloadDriver/enqueue(producers:_:)`` given `producers: nil`.
  public var producers: Int
  /// Whether to run the Spool measurement a second time with a `LatencyRecorder` attached and
  /// report its per-action-case latencies. The throughput always comes from the run without it.
  public var profile: Bool
  /// How long the soak runs; `nil` for its default (60 s). Other workloads ignore it.
  public var duration: Duration?
  /// How many times each workload runs, Spool and its baselines alternating; the report then
  /// gives medians and every round's figures (SpoolProfiling's
  /// `WorkloadReport.mergingRounds(_:)`).
  /// The soak always runs once. With ``profile``, only the last round is profiled.
  public var rounds: Int

  /// Creates options.
  ///
  /// ```swift
  /// let quick = WorkloadOptions(actions: 10_000)
  /// let soak = WorkloadOptions(duration: .seconds(60))
  /// let steadier = WorkloadOptions(rounds: 3)
  /// ```
  public init(
    actions: Int? = nil, producers: Int = 4, profile: Bool = false, duration: Duration? = nil,
    rounds: Int = 1
  ) {
    self.actions = actions
    self.producers = producers
    self.profile = profile
    self.duration = duration
    self.rounds = max(1, rounds)
  }
}

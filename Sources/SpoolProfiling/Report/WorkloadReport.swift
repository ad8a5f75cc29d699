/// What one workload measured: volume, duration, throughput, memory, baselines and latencies.
///
/// The fields are those `spool bench --format json` prints for each workload; the latency
/// table, effect statistics and trace sample come from a ``LatencyRecording`` when the run was
/// profiled, and are empty otherwise.
///
/// ```swift
/// let workload = WorkloadReport(
///   name: "counter", parameters: ["actions": "1000000"], durationSeconds: 0.05,
///   recording: recorder.recording(), peakRSSBytes: ProcessStatistics.peakResidentBytes()
/// )
/// ```
public struct WorkloadReport: Codable, Sendable, Equatable {
  /// The workload's name, `counter`.
  public var name: String
  /// The parameters it ran with, as text (`"actions": "1000000"`).
  public var parameters: [String: String]
  /// How many actions the store reduced.
  public var actions: Int
  /// Wall-clock duration of the measured part, in seconds.
  public var durationSeconds: Double
  /// `actions / durationSeconds`; 0 when the duration is 0.
  public var throughputPerSecond: Double
  /// The process's peak resident set size after the workload, when known.
  public var peakRSSBytes: Int?
  /// The active I/O backend (`io_uring` or `threads`), for I/O workloads.
  public var ioBackend: String?
  /// The same work done without Spool, measured in the same run.
  public var baselines: [Baseline]
  /// Latency per action case, sorted by label.
  public var actionCases: [ActionCaseReport]
  /// Effect outcomes and lifetimes per action case that started effects, sorted by label.
  public var effects: [EffectReport]
  /// A bounded sample of intervals for the Chrome trace view.
  public var trace: [TraceInterval]
  /// For long runs (`spool bench soak`): memory, throughput, latency and live effects over
  /// time, and whether they stayed flat. Absent from other workloads' reports and from reports
  /// written before the field existed, which therefore still read (schema version 1).
  public var timeline: Timeline?
  /// Every round's figures, in the order they ran, when the workload ran more than once
  /// (`spool bench --rounds N`); the figures above are then the medians (see
  /// ``mergingRounds(_:)``). Absent when it ran once, and from reports written before the field
  /// existed, which therefore still read (schema version 1).
  public var rounds: [WorkloadRound]?
  /// One action in this many was timed, when the latencies are a sample
  /// (`LatencyRecorder(sampling: .oneIn(N))`): the action counts are exact, the latency
  /// summaries come from the timed actions. Absent when every action was timed, and from
  /// reports written before the field existed, which therefore still read (schema version 1).
  public var timingSampleInterval: Int?

  /// Creates a workload report; `throughputPerSecond` is derived from the other two figures.
  ///
  /// ```swift
  /// let workload = WorkloadReport(name: "raw", actions: 1_000, durationSeconds: 0.001)
  /// ```
  public init(
    name: String,
    parameters: [String: String] = [:],
    actions: Int,
    durationSeconds: Double,
    peakRSSBytes: Int? = nil,
    ioBackend: String? = nil,
    baselines: [Baseline] = [],
    actionCases: [ActionCaseReport] = [],
    effects: [EffectReport] = [],
    trace: [TraceInterval] = [],
    timeline: Timeline? = nil
  ) {
    self.name = name
    self.parameters = parameters
    self.actions = actions
    self.durationSeconds = durationSeconds
    self.throughputPerSecond = Self.throughput(actions: actions, seconds: durationSeconds)
    self.peakRSSBytes = peakRSSBytes
    self.ioBackend = ioBackend
    self.baselines = baselines
    self.actionCases = actionCases
    self.effects = effects
    self.trace = trace
    self.timeline = timeline
  }

  /// Creates a workload report from what a ``LatencyRecorder`` recorded during the run.
  ///
  /// ```swift
  /// let workload = WorkloadReport(
  ///   name: "counter", durationSeconds: elapsed, recording: recorder.recording()
  /// )
  /// ```
  public init(
    name: String,
    parameters: [String: String] = [:],
    durationSeconds: Double,
    recording: LatencyRecording,
    peakRSSBytes: Int? = nil,
    ioBackend: String? = nil,
    baselines: [Baseline] = []
  ) {
    self.init(
      name: name, parameters: parameters, actions: recording.actions,
      durationSeconds: durationSeconds, peakRSSBytes: peakRSSBytes, ioBackend: ioBackend,
      baselines: baselines, actionCases: recording.actionCases, effects: recording.effects,
      trace: recording.trace)
    self.timingSampleInterval =
      recording.timingSampling.isSampled ? recording.timingSampling.interval : nil
  }

  static func throughput(actions: Int, seconds: Double) -> Double {
    seconds > 0 && seconds.isFinite ? Double(actions) / seconds : 0
  }

  /// One report from the reports of several rounds of the same workload: Spool's figures are
  /// those of its median round; each baseline's throughput is set so that the report's ratio,
  /// Spool's throughput divided by the baseline's, is the median of the rounds' ratios to that
  /// baseline (Spool's median throughput divided by that median ratio); the peak RSS is the
  /// first round's; and every round's measured figures are kept in ``rounds``. Everything
  /// else (parameters, latencies, effects, trace, timeline) comes from the last round, the one
  /// `spool bench --profile` profiles.
  ///
  /// Why medians of rounds: on a shared 2-core machine one measurement of a side can be off by
  /// half (another process takes a core for a moment); running the workload several times,
  /// Spool and baselines alternating, and taking medians keeps one bad moment out of the
  /// figure, while ``rounds`` shows the spread. Why the median of the rounds' ratios rather
  /// than the ratio of each side's median: a moment that slows the whole machine slows both
  /// sides of one round, and their ratio in that round stays sound; taken apart, the two
  /// medians can come from different rounds, and their ratio can then equal the most extreme
  /// of the rounds' ratios rather than the middle one. A median of an even count is the lower
  /// of the two middle values. Why the first round's peak RSS: resident memory does not shrink
  /// when the allocator keeps freed pages, so later rounds' peaks also hold what the earlier
  /// rounds' baselines allocated; the first is the closest to Spool's own.
  ///
  /// ```swift
  /// let merged = WorkloadReport.mergingRounds([first, second, third])
  /// print(merged.throughputPerSecond, merged.rounds?.count ?? 1)
  /// ```
  ///
  /// - Parameter rounds: Reports of one workload, in the order they ran; not empty. A single
  ///   report is returned as it is.
  public static func mergingRounds(_ rounds: [WorkloadReport]) -> WorkloadReport {
    precondition(!rounds.isEmpty, "mergingRounds needs at least one report")
    guard rounds.count > 1, var merged = rounds.last else { return rounds[0] }
    let median = rounds.sorted { $0.throughputPerSecond < $1.throughputPerSecond }[
      (rounds.count - 1) / 2]
    merged.actions = median.actions
    merged.durationSeconds = median.durationSeconds
    merged.throughputPerSecond = median.throughputPerSecond
    merged.peakRSSBytes = rounds[0].peakRSSBytes
    merged.baselines = merged.baselines.map { baseline in
      let ratios = rounds.compactMap { round -> Double? in
        guard
          let figure = round.baselines.first(where: { $0.name == baseline.name }),
          figure.throughputPerSecond > 0, round.throughputPerSecond > 0
        else { return nil }
        return round.throughputPerSecond / figure.throughputPerSecond
      }.sorted()
      guard !ratios.isEmpty else { return baseline }
      let ratio = ratios[(ratios.count - 1) / 2]
      return Baseline(name: baseline.name, throughputPerSecond: median.throughputPerSecond / ratio)
    }
    merged.rounds = rounds.map {
      WorkloadRound(
        durationSeconds: $0.durationSeconds, throughputPerSecond: $0.throughputPerSecond,
        baselines: $0.baselines)
    }
    return merged
  }
}

/// One round's figures of a workload that ran several times (`spool bench --rounds N`).
///
/// ```swift
/// for round in report.rounds ?? [] {
///   print(round.throughputPerSecond, round.baselines.map(\.throughputPerSecond))
/// }
/// ```
public struct WorkloadRound: Codable, Sendable, Equatable {
  /// Wall-clock duration of Spool's measured part in this round, in seconds.
  public var durationSeconds: Double
  /// Spool's throughput in this round.
  public var throughputPerSecond: Double
  /// The baselines' throughputs in this round.
  public var baselines: [Baseline]

  /// Creates a round's figures.
  ///
  /// ```swift
  /// let round = WorkloadRound(durationSeconds: 0.2, throughputPerSecond: 1_500_000, baselines: [])
  /// ```
  public init(durationSeconds: Double, throughputPerSecond: Double, baselines: [Baseline]) {
    self.durationSeconds = durationSeconds
    self.throughputPerSecond = throughputPerSecond
    self.baselines = baselines
  }
}

/// The throughput of the same work done without Spool (`raw-loop`, `plain-actor`, …).
///
/// ```swift
/// let baseline = Baseline(name: "plain-actor", throughputPerSecond: 14_000_000)
/// ```
public struct Baseline: Codable, Sendable, Equatable {
  /// `raw-loop`, `plain-actor`, `locked-class`, `task-per-action`, `blocking-io`, …
  public var name: String
  /// Actions (or operations) per second.
  public var throughputPerSecond: Double

  /// Creates a baseline figure.
  ///
  /// ```swift
  /// let baseline = Baseline(name: "raw-loop", throughputPerSecond: 500_000_000)
  /// ```
  public init(name: String, throughputPerSecond: Double) {
    self.name = name
    self.throughputPerSecond = throughputPerSecond
  }
}

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
  }

  static func throughput(actions: Int, seconds: Double) -> Double {
    seconds > 0 && seconds.isFinite ? Double(actions) / seconds : 0
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

import SpoolCore

/// What a ``LatencyRecorder`` has recorded so far, as report rows.
///
/// ```swift
/// let recording = recorder.recording()
/// print(recording.actions, recording.actionCases.map(\.label))
/// ```
public struct LatencyRecording: Sendable, Equatable {
  /// Actions reduced.
  public var actions: Int
  /// The earliest enqueue time seen, when any action was recorded.
  public var firstEnqueueNanoseconds: UInt64?
  /// The latest reduce end seen, when any action was recorded.
  public var lastEndNanoseconds: UInt64?
  /// Latency per action case, sorted by label.
  public var actionCases: [ActionCaseReport]
  /// Effect outcomes and lifetimes per action case, sorted by label.
  public var effects: [EffectReport]
  /// The most recent actions and effects (bounded by the recorder's trace capacity), plus the
  /// signpost intervals asked for, sorted by start.
  public var trace: [TraceInterval]
  /// How many of the actions the recorder asked the store to time
  /// (``LatencyRecorder/init(traceCapacity:storeTrack:sampling:)``): with
  /// `TimingSampling.oneIn(_:)`, ``actions`` and each case's `count` are exact, and the
  /// latency summaries and the trace come from the timed actions.
  public var timingSampling: TimingSampling = .everyAction

  /// Actions per second between the first enqueue and the last reduce end; 0 when unknown.
  public var throughputPerSecond: Double {
    guard let first = firstEnqueueNanoseconds, let last = lastEndNanoseconds, last > first
    else { return 0 }
    return Double(actions) / (Double(last - first) / 1e9)
  }
}

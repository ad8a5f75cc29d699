/// How the effects started by one action case ended, and how long they lived.
///
/// ```swift
/// for effect in workload.effects where effect.failed > 0 {
///   print("\(effect.label): \(effect.failed) failed")
/// }
/// ```
public struct EffectReport: Codable, Sendable, Equatable {
  /// The case of the action that started the effects.
  public var label: String
  /// Effects started.
  public var started: Int
  /// Effects that ran to their end.
  public var finished: Int
  /// Effects that were cancelled.
  public var cancelled: Int
  /// Effects that threw an error other than a cancellation.
  public var failed: Int
  /// From start to end, over the effects that ended.
  public var lifetime: LatencySummary

  /// Effects started and not (yet) ended when the recording was taken.
  public var inFlight: Int { Swift.max(0, started - finished - cancelled - failed) }

  /// Creates a row of the effect table.
  ///
  /// ```swift
  /// let row = EffectReport(
  ///   label: "load", started: 1, finished: 1, cancelled: 0, failed: 0, lifetime: .empty
  /// )
  /// ```
  public init(
    label: String, started: Int, finished: Int, cancelled: Int, failed: Int,
    lifetime: LatencySummary
  ) {
    self.label = label
    self.started = started
    self.finished = finished
    self.cancelled = cancelled
    self.failed = failed
    self.lifetime = lifetime
  }
}

/// One interval or point event of the trace sample, in nanoseconds on `CLOCK_MONOTONIC`.
///
/// ```swift
/// let interval = TraceInterval(
///   name: "parse", track: "thread 1", kind: .interval,
///   startNanoseconds: 1_000, durationNanoseconds: 250
/// )
/// ```
public struct TraceInterval: Codable, Sendable, Equatable {
  /// What the interval shows: an action's queue wait or reduce, an effect, a signpost.
  public enum Kind: String, Codable, Sendable, CaseIterable {
    /// A signpost interval (`begin` / `end`, `withInterval`).
    case interval
    /// A signpost point event; its duration is 0.
    case event
    /// An action's reduce.
    case reduce
    /// An action's wait in the store's queue.
    case queueWait
    /// An effect's lifetime; effects overlap, so the trace shows them as async slices.
    case effect
  }

  /// The signpost name or the action case label.
  public var name: String
  /// The row it is drawn on: `store`, `effects`, `thread 2`.
  public var track: String
  /// What it shows.
  public var kind: Kind
  /// When it started.
  public var startNanoseconds: UInt64
  /// How long it lasted.
  public var durationNanoseconds: UInt64

  /// Creates an interval of the trace sample.
  ///
  /// ```swift
  /// let event = TraceInterval(
  ///   name: "flush", track: "thread 1", kind: .event, startNanoseconds: 5, durationNanoseconds: 0
  /// )
  /// ```
  public init(
    name: String, track: String, kind: Kind, startNanoseconds: UInt64,
    durationNanoseconds: UInt64
  ) {
    self.name = name
    self.track = track
    self.kind = kind
    self.startNanoseconds = startNanoseconds
    self.durationNanoseconds = durationNanoseconds
  }
}

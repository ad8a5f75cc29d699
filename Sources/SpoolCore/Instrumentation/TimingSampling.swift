import IssueReporting

/// How many of a store's actions its instrumentation times: every one, or one in N.
///
/// An instrumentation says which it wants through
/// ``StoreInstrumentation/timingSampling``; Spool's own take it as an argument
/// (`LatencyRecorder(sampling:)`, `MetricsInstrumentation(store:sampling:)`). With
/// ``oneIn(_:)``, the store still reports every action, but reads the clock only for one in
/// N: that one goes to ``StoreInstrumentation/actionReduced(_:enqueuedAt:startedAt:endedAt:)``
/// with its times, the others to ``StoreInstrumentation/actionCounted(_:)`` without any. Counts
/// stay exact; latency percentiles come from the timed actions: every Nth of the actions
/// reduced where they were sent (a producer that found the store idle, `send`, an effect's
/// synchronous send), and each queued action with probability 1/N, drawn as it is pushed.
/// Effects are timed whatever the sampling.
///
/// What a sampled percentile can be off by: with `n` timed actions, the reported percentile
/// `p` is the value of a rank within about `3 × √(p × (1 − p) / n)` of `p` (three standard
/// errors of a sample quantile), to the 1% of the histogram that holds it. A p99 from 4,000
/// timed actions is the true p98.5 to p99.5; the value that spans depends on how steep the
/// distribution is there. A workload whose latencies repeat with a period of N, reduced
/// where it was sent, samples the same phase every time: that is what the random draw of
/// queued actions avoids, and what the every-Nth count of the others does not.
///
/// Sampling is for cheap reducers at volume, where the clock reads are most of what
/// instrumentation costs; an instrumentation that needs every action's time (an action
/// journal, whose ``StoreInstrumentation/timesReduces`` is `false`) is never sampled.
///
/// ```swift
/// let recorder = LatencyRecorder<Counter.Action>(sampling: .oneIn(64))
/// let store = Store(initialState: Counter.State(), instrumentation: recorder) {
///   Counter()
/// }
/// ```
public struct TimingSampling: Sendable, Hashable, CustomStringConvertible {
  /// How many actions there are for each timed one: 1 times every action.
  public let interval: Int

  private init(interval: Int) {
    self.interval = interval
  }

  /// Every action is timed: the default.
  ///
  /// ```swift
  /// let recorder = LatencyRecorder<Counter.Action>(sampling: .everyAction)
  /// ```
  public static let everyAction = TimingSampling(interval: 1)

  /// One action in `interval` is timed; every action is counted.
  ///
  /// An `interval` below 1 is a mistake: it is reported as an issue (which fails a test), and
  /// every action is timed.
  ///
  /// ```swift
  /// let metrics = MetricsInstrumentation<Checkout.Action>(
  ///   store: "checkout", sampling: .oneIn(64)
  /// )
  /// ```
  ///
  /// - Parameter interval: How many actions there are for each timed one; 1 or more.
  public static func oneIn(_ interval: Int) -> TimingSampling {
    guard interval >= 1 else {
      reportIssue(
        """
        TimingSampling.oneIn(\(interval)): the interval must be 1 or more (one action timed \
        in that many). Timing every action instead.
        """
      )
      return .everyAction
    }
    return TimingSampling(interval: interval)
  }

  /// Whether some actions go untimed (``interval`` above 1).
  ///
  /// ```swift
  /// TimingSampling.oneIn(64).isSampled  // true
  /// ```
  public var isSampled: Bool { interval > 1 }

  /// `every action`, or `1 in 64`.
  public var description: String { isSampled ? "1 in \(interval)" : "every action" }
}

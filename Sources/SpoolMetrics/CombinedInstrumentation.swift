import SpoolCore

/// Feeds one store's timing to several instrumentations, in the order given.
///
/// A store takes one instrumentation; this one forwards every call to each of its parts, so a
/// store can feed a `LatencyRecorder`, a ``MetricsInstrumentation`` and a
/// ``TracingInstrumentation`` at once. It adds a loop and one dynamic call per part to each
/// hook; the parts' own costs add up.
///
/// ```swift
/// let recorder = LatencyRecorder<Checkout.Action>()
/// let store = Store(
///   initialState: Checkout.State(),
///   instrumentation: CombinedInstrumentation(
///     recorder,
///     MetricsInstrumentation<Checkout.Action>(store: "checkout"),
///     TracingInstrumentation<Checkout.Action>(store: "checkout")
///   )
/// ) {
///   Checkout()
/// }
/// ```
public final class CombinedInstrumentation<Action: Sendable>: StoreInstrumentation {
  /// The instrumentations each call goes to, in order.
  public let parts: [any StoreInstrumentation<Action>]

  /// Combines `parts`, which receive each call in the order given.
  ///
  /// ```swift
  /// let both = CombinedInstrumentation(recorder, metrics)
  /// ```
  public convenience init(_ parts: any StoreInstrumentation<Action>...) {
    self.init(parts: parts)
  }

  /// Combines `parts`, which receive each call in array order.
  ///
  /// ```swift
  /// let all = CombinedInstrumentation(parts: [recorder, metrics, tracing])
  /// ```
  public init(parts: [any StoreInstrumentation<Action>]) {
    self.parts = parts
  }

  /// Whether any part times reduces: then every part gets the times.
  ///
  /// ```swift
  /// CombinedInstrumentation(journal, recorder).timesReduces  // true: the recorder does
  /// ```
  public var timesReduces: Bool { parts.contains { $0.timesReduces } }

  /// The parts' sampling when they all sample alike; every action otherwise, so that no part
  /// gets fewer timed actions than it asked for.
  ///
  /// ```swift
  /// CombinedInstrumentation(
  ///   LatencyRecorder<Checkout.Action>(sampling: .oneIn(64)),
  ///   MetricsInstrumentation<Checkout.Action>(store: "checkout", sampling: .oneIn(64))
  /// ).timingSampling  // 1 in 64
  /// ```
  public var timingSampling: TimingSampling {
    guard let first = parts.first?.timingSampling,
      parts.allSatisfy({ $0.timingSampling == first })
    else { return .everyAction }
    return first
  }

  /// Forwards to each part.
  ///
  /// ```swift
  /// both.actionCounted(.tap)
  /// ```
  public func actionCounted(_ action: Action) {
    for part in parts { part.actionCounted(action) }
  }

  /// Forwards the action's address to each part.
  ///
  /// ```swift
  /// withUnsafePointer(to: Counter.Action.tap) { both._actionCounted(at: $0) }
  /// ```
  public func _actionCounted(at action: UnsafePointer<Action>) {
    for part in parts { part._actionCounted(at: action) }
  }

  /// Forwards to each part.
  ///
  /// ```swift
  /// both.actionReduced(.tap, enqueuedAt: 100, startedAt: 150, endedAt: 190)
  /// ```
  public func actionReduced(
    _ action: Action, enqueuedAt: UInt64, startedAt: UInt64, endedAt: UInt64
  ) {
    for part in parts {
      part.actionReduced(action, enqueuedAt: enqueuedAt, startedAt: startedAt, endedAt: endedAt)
    }
  }

  /// Forwards the action's address to each part.
  ///
  /// ```swift
  /// withUnsafePointer(to: Counter.Action.tap) { tap in
  ///   both._actionReduced(at: tap, enqueuedAt: 100, startedAt: 150, endedAt: 190)
  /// }
  /// ```
  public func _actionReduced(
    at action: UnsafePointer<Action>, enqueuedAt: UInt64, startedAt: UInt64, endedAt: UInt64
  ) {
    for part in parts {
      part._actionReduced(
        at: action, enqueuedAt: enqueuedAt, startedAt: startedAt, endedAt: endedAt)
    }
  }

  /// Forwards to each part.
  ///
  /// ```swift
  /// both.effectStarted(by: .load, at: 200)
  /// ```
  public func effectStarted(by action: Action, at time: UInt64) {
    for part in parts { part.effectStarted(by: action, at: time) }
  }

  /// Forwards to each part.
  ///
  /// ```swift
  /// both.effectEnded(by: .load, startedAt: 200, endedAt: 5_200, outcome: .finished)
  /// ```
  public func effectEnded(
    by action: Action, startedAt: UInt64, endedAt: UInt64, outcome: EffectOutcome
  ) {
    for part in parts {
      part.effectEnded(by: action, startedAt: startedAt, endedAt: endedAt, outcome: outcome)
    }
  }
}

// Its `_actionReduced(at:…)` reads the action in place.
extension CombinedInstrumentation: InPlaceActionTiming {}

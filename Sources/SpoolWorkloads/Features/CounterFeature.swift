import SpoolCore

/// The feature the `counter` workloads drive: a reducer that only counts.
///
/// It is the cheapest possible feature, so that a workload built on it measures the store's
/// own cost per action: queueing, draining, dispatch to the reducer, the effect check.
///
/// ```swift
/// let store = Store(initialState: CounterFeature.State()) { CounterFeature() }
/// store.enqueue(.increment)
/// ```
public struct CounterFeature: Reducer, Sendable {
  /// The count, and a checksum of the values added, to detect lost or duplicated actions.
  public struct State: Equatable, Sendable, Codable {
    public var count = 0
    public var sum = 0
    /// Creates the reducer.
    public init() {}
  }

  /// What a producer can ask of the counter.
  public enum Action: Equatable, Sendable, Codable {
    case increment
    case add(Int)
  }

  /// Creates the reducer.

  public init() {}

  /// Reduces one action; the type's documentation says what each action does.

  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .increment:
      state.count &+= 1
    case let .add(value):
      state.count &+= 1
      state.sum &+= value
    }
    return .none
  }
}

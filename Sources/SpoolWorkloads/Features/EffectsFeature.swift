import SpoolCore

/// The feature the `effects` workload drives: every request starts an effect that sends a
/// response back, the smallest round trip through an effect.
///
/// ```swift
/// let store = Store(initialState: EffectsFeature.State()) { EffectsFeature() }
/// store.enqueue(.request(1))
/// await store.finish()
/// print(await store.state.responses)  // 1
/// ```
public struct EffectsFeature: Reducer, Sendable {
  /// Requests made and responses received, with a checksum of the responses' values.
  public struct State: Equatable, Sendable, Codable {
    public var requests = 0
    public var responses = 0
    public var sum = 0
    /// Creates the reducer.
    public init() {}
  }

  /// A request, and the response its effect sends back.
  public enum Action: Equatable, Sendable, Codable {
    case request(Int)
    case response(Int)
  }

  /// Creates the reducer.

  public init() {}

  /// Reduces one action; the type's documentation says what each action does.

  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case let .request(value):
      state.requests += 1
      return .run { send in await send(.response(value)) }
    case let .response(value):
      state.responses += 1
      state.sum &+= value
      return .none
    }
  }
}

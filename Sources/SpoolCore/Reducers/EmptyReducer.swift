/// A reducer that does nothing: no state change, no effect.
///
/// ```swift
/// Scope(state: \.placeholder, action: \.placeholder) {
///   EmptyReducer()
/// }
/// ```
public struct EmptyReducer<State, Action: Sendable>: Reducer {
  /// Creates a reducer that does nothing.
  @inlinable
  public init() {}

  @inlinable
  public func reduce(into _: inout State, action _: Action) -> Effect<Action> {
    .none
  }
}

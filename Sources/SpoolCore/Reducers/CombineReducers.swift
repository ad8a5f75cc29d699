/// Runs a list of reducers, one after the other, as one reducer.
///
/// Useful to apply an operator (`ifLet`, `onChange`, …) to several reducers at once.
///
/// ```swift
/// CombineReducers {
///   Scope(state: \.profile, action: \.profile) { Profile() }
///   Reduce { state, action in .none }
/// }
/// .onChange(of: \.profile) { _, _ in
///   Reduce { state, _ in state.isDirty = true; return .none }
/// }
/// ```
public struct CombineReducers<State, Action: Sendable, Reducers: Reducer<State, Action>>: Reducer {
  @usableFromInline
  let reducers: Reducers

  /// Combines the reducers the builder closure lists.
  @inlinable
  public init(@ReducerBuilder<State, Action> _ build: () -> Reducers) {
    self.reducers = build()
  }

  @inlinable
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    reducers.reduce(into: &state, action: action)
  }
}

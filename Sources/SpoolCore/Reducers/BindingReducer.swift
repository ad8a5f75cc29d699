/// A reducer that applies a feature's ``BindingAction``s to its state.
///
/// For each action that carries a binding action (see ``BindableAction``), it writes the
/// action's value through its key path; other actions pass through untouched. It returns no
/// effect. Put it before the reducer that reacts to the written value, as in TCA, so that
/// reducer sees the state after the write.
///
/// ```swift
/// var body: some ReducerOf<Self> {
///   BindingReducer()
///   Reduce { state, action in
///     switch action {
///     case .binding(\.filter):
///       state.visibleTodos = state.todos.filter(state.filter.isIncluded)
///       return .none
///     case .binding:
///       return .none
///     }
///   }
/// }
/// ```
public struct BindingReducer<State, Action: BindableAction & Sendable>: Reducer
where Action.State == State {
  /// Creates a reducer that applies binding actions.
  @inlinable
  public init() {}

  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    action.binding?.set(&state)
    return .none
  }
}

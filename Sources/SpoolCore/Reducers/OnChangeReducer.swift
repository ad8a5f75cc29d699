extension Reducer {
  /// Runs another reducer when a value derived from the state changes.
  ///
  /// After this reducer has run for an action, the value at `toValue` is compared with its value
  /// before; when it differs, `reducer(oldValue, newValue)` runs for the same action.
  ///
  /// - Parameters:
  ///   - toValue: What to watch, usually a key path.
  ///   - reducer: Builds the reducer to run, from the old and new values.
  ///
  /// ```swift
  /// Reduce { state, action in … }
  ///   .onChange(of: \.query) { oldQuery, newQuery in
  ///     Reduce { state, _ in
  ///       state.results = []
  ///       return .none
  ///     }
  ///   }
  /// ```
  @inlinable
  public func onChange<Value: Equatable, Changed: Reducer<State, Action>>(
    of toValue: @escaping (State) -> Value,
    @ReducerBuilder<State, Action> _ reducer: @escaping (
      _ oldValue: Value, _ newValue: Value
    ) -> Changed
  ) -> _OnChangeReducer<Self, Value, Changed> {
    _OnChangeReducer(base: self, toValue: toValue, reducer: reducer)
  }
}

/// The reducer that ``Reducer/onChange(of:_:)`` returns.
public struct _OnChangeReducer<Base: Reducer, Value: Equatable, Changed: Reducer>: Reducer
where Changed.State == Base.State, Changed.Action == Base.Action {
  @usableFromInline let base: Base
  @usableFromInline let toValue: (Base.State) -> Value
  @usableFromInline let reducer: (Value, Value) -> Changed

  @usableFromInline
  init(
    base: Base, toValue: @escaping (Base.State) -> Value,
    reducer: @escaping (Value, Value) -> Changed
  ) {
    self.base = base
    self.toValue = toValue
    self.reducer = reducer
  }

  @inlinable
  public func reduce(into state: inout Base.State, action: Base.Action) -> Effect<Base.Action> {
    let oldValue = toValue(state)
    let baseEffect = base.reduce(into: &state, action: action)
    let newValue = toValue(state)
    guard oldValue != newValue else { return baseEffect }
    return baseEffect.merge(with: reducer(oldValue, newValue).reduce(into: &state, action: action))
  }
}

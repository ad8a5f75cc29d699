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
    _OnChangeReducer(base: self, toValue: toValue, isDuplicate: { $0 == $1 }, reducer: reducer)
  }

  /// Runs another reducer when a value derived from the state changes, as `isDuplicate`
  /// decides: for a value that is not `Equatable` (a tuple), or a change that only some
  /// differences make.
  ///
  /// After this reducer has run for an action, `reducer(oldValue, newValue)` runs for the same
  /// action unless `isDuplicate(oldValue, newValue)` is `true`.
  ///
  /// - Parameters:
  ///   - toValue: What to watch.
  ///   - isDuplicate: Whether two values count as the same, so that nothing runs.
  ///   - reducer: Builds the reducer to run, from the old and new values.
  ///
  /// ```swift
  /// Reduce { state, action in … }
  ///   .onChange(of: { ($0.query, $0.page) }, removeDuplicates: ==) { _, _ in
  ///     Reduce { state, _ in
  ///       state.results = []
  ///       return .none
  ///     }
  ///   }
  /// ```
  @inlinable
  public func onChange<Value, Changed: Reducer<State, Action>>(
    of toValue: @escaping (State) -> Value,
    removeDuplicates isDuplicate: @escaping (Value, Value) -> Bool,
    @ReducerBuilder<State, Action> _ reducer: @escaping (
      _ oldValue: Value, _ newValue: Value
    ) -> Changed
  ) -> _OnChangeReducer<Self, Value, Changed> {
    _OnChangeReducer(base: self, toValue: toValue, isDuplicate: isDuplicate, reducer: reducer)
  }
}

/// The reducer that ``Reducer/onChange(of:_:)`` and
/// ``Reducer/onChange(of:removeDuplicates:_:)`` return.
public struct _OnChangeReducer<Base: Reducer, Value, Changed: Reducer>: Reducer
where Changed.State == Base.State, Changed.Action == Base.Action {
  @usableFromInline let base: Base
  @usableFromInline let toValue: (Base.State) -> Value
  @usableFromInline let isDuplicate: (Value, Value) -> Bool
  @usableFromInline let reducer: (Value, Value) -> Changed

  @usableFromInline
  init(
    base: Base, toValue: @escaping (Base.State) -> Value,
    isDuplicate: @escaping (Value, Value) -> Bool,
    reducer: @escaping (Value, Value) -> Changed
  ) {
    self.base = base
    self.toValue = toValue
    self.isDuplicate = isDuplicate
    self.reducer = reducer
  }

  @inlinable
  public func reduce(into state: inout Base.State, action: Base.Action) -> Effect<Base.Action> {
    let oldValue = toValue(state)
    let baseEffect = base.reduce(into: &state, action: action)
    let newValue = toValue(state)
    guard !isDuplicate(oldValue, newValue) else { return baseEffect }
    return baseEffect.merge(with: reducer(oldValue, newValue).reduce(into: &state, action: action))
  }
}

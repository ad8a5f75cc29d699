/// Builds a reducer from a list of reducers, run one after the other for each action.
///
/// The attribute of ``Reducer/body`` and of the trailing closures of ``CombineReducers``,
/// ``Store``'s initializer and `TestStore`'s. `if`, `if`/`else`, `switch` and `for` work as in
/// other result builders; a reducer in an untaken branch does nothing.
///
/// ```swift
/// var body: some ReducerOf<Self> {
///   Scope(state: \.settings, action: \.settings) { Settings() }
///   if isLoggingEnabled {
///     Logging()
///   }
///   Reduce { state, action in .none }
/// }
/// ```
@resultBuilder
public enum ReducerBuilder<State, Action: Sendable> {
  @inlinable
  public static func buildArray<R: Reducer<State, Action>>(_ reducers: [R]) -> _ReducerArray<R> {
    _ReducerArray(reducers: reducers)
  }

  @inlinable
  public static func buildBlock() -> EmptyReducer<State, Action> {
    EmptyReducer()
  }

  @inlinable
  public static func buildBlock<R: Reducer<State, Action>>(_ reducer: R) -> R {
    reducer
  }

  @inlinable
  public static func buildEither<R0: Reducer<State, Action>, R1: Reducer<State, Action>>(
    first reducer: R0
  ) -> _ReducerConditional<R0, R1> {
    .first(reducer)
  }

  @inlinable
  public static func buildEither<R0: Reducer<State, Action>, R1: Reducer<State, Action>>(
    second reducer: R1
  ) -> _ReducerConditional<R0, R1> {
    .second(reducer)
  }

  @inlinable
  public static func buildExpression<R: Reducer<State, Action>>(_ expression: R) -> R {
    expression
  }

  /// An existential reducer (`any ReducerOf<Feature>`), run through ``Reduce``, as TCA's
  /// builder takes one: its type is known only at run time, so each action goes through a
  /// dynamic call.
  ///
  /// ```swift
  /// let extra: any ReducerOf<Feature> = Logging()
  /// var body: some ReducerOf<Self> {
  ///   Core()
  ///   extra
  /// }
  /// ```
  @_disfavoredOverload
  @inlinable
  public static func buildExpression(
    _ expression: any Reducer<State, Action>
  ) -> Reduce<State, Action> {
    Reduce(expression)
  }

  @inlinable
  public static func buildFinalResult<R: Reducer<State, Action>>(_ reducer: R) -> R {
    reducer
  }

  @inlinable
  public static func buildLimitedAvailability<R: Reducer<State, Action>>(
    _ reducer: R
  ) -> _ReducerOptional<R> {
    _ReducerOptional(wrapped: reducer)
  }

  @inlinable
  public static func buildOptional<R: Reducer<State, Action>>(
    _ reducer: R?
  ) -> _ReducerOptional<R> {
    _ReducerOptional(wrapped: reducer)
  }

  @inlinable
  public static func buildPartialBlock<R: Reducer<State, Action>>(first: R) -> R {
    first
  }

  @inlinable
  public static func buildPartialBlock<R0: Reducer<State, Action>, R1: Reducer<State, Action>>(
    accumulated: R0, next: R1
  ) -> _ReducerSequence<R0, R1> {
    _ReducerSequence(first: accumulated, second: next)
  }
}

/// Two reducers run one after the other; built by ``ReducerBuilder``.
public struct _ReducerSequence<R0: Reducer, R1: Reducer<R0.State, R0.Action>>: Reducer {
  @usableFromInline let first: R0
  @usableFromInline let second: R1

  @usableFromInline
  init(first: R0, second: R1) {
    self.first = first
    self.second = second
  }

  @inlinable
  public func reduce(into state: inout R0.State, action: R0.Action) -> Effect<R0.Action> {
    let firstEffect = first.reduce(into: &state, action: action)
    let secondEffect = second.reduce(into: &state, action: action)
    return firstEffect.merge(with: secondEffect)
  }
}

/// One of two reducers, by the branch taken; built by ``ReducerBuilder``.
public enum _ReducerConditional<R0: Reducer, R1: Reducer<R0.State, R0.Action>>: Reducer {
  case first(R0)
  case second(R1)

  @inlinable
  public func reduce(into state: inout R0.State, action: R0.Action) -> Effect<R0.Action> {
    switch self {
    case let .first(reducer): return reducer.reduce(into: &state, action: action)
    case let .second(reducer): return reducer.reduce(into: &state, action: action)
    }
  }
}

/// A reducer that may be absent; built by ``ReducerBuilder`` for `if` without `else`.
public struct _ReducerOptional<Wrapped: Reducer>: Reducer {
  @usableFromInline let wrapped: Wrapped?

  @usableFromInline
  init(wrapped: Wrapped?) {
    self.wrapped = wrapped
  }

  @inlinable
  public func reduce(
    into state: inout Wrapped.State, action: Wrapped.Action
  ) -> Effect<Wrapped.Action> {
    wrapped?.reduce(into: &state, action: action) ?? .none
  }
}

/// Reducers from a `for` loop, run in order; built by ``ReducerBuilder``.
public struct _ReducerArray<Element: Reducer>: Reducer {
  @usableFromInline let reducers: [Element]

  @usableFromInline
  init(reducers: [Element]) {
    self.reducers = reducers
  }

  @inlinable
  public func reduce(
    into state: inout Element.State, action: Element.Action
  ) -> Effect<Element.Action> {
    .merge(reducers.map { $0.reduce(into: &state, action: action) })
  }
}

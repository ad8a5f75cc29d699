/// A feature's logic: how an action changes the state, and what effect it starts.
///
/// Conform with either a ``reduce(into:action:)`` method or a ``body`` built from other
/// reducers, as in TCA:
///
/// ```swift
/// struct Counter: Reducer {
///   struct State: Equatable, Sendable { var count = 0 }
///   enum Action: Sendable { case incrementButtonTapped, decrementButtonTapped }
///
///   var body: some ReducerOf<Self> {
///     Reduce { state, action in
///       switch action {
///       case .incrementButtonTapped: state.count += 1
///       case .decrementButtonTapped: state.count -= 1
///       }
///       return .none
///     }
///   }
/// }
/// ```
///
/// The `@Reducer` macro writes the conformance for you and makes `Action` (and an enum
/// `State`) `@CasePathable`, as TCA's `@Reducer` does; on an enum of reducers it generates TCA's
/// enum reducer (a `Destination`, a ``CaseReducer``). It adds no `@ObservableState`: Spool has
/// none.
///
/// ```swift
/// @Reducer
/// struct Counter {
///   struct State: Equatable, Sendable { var count = 0 }
///   enum Action { case incrementButtonTapped }
///   var body: some ReducerOf<Self> { Reduce { state, _ in state.count += 1; return .none } }
/// }
/// ```
///
/// A reducer runs synchronously, one action at a time, on whichever thread holds its store (the
/// store's executor, or the thread of a producer that found the store idle), and never awaits:
/// asynchronous work goes into the returned ``Effect``. Actions must be `Sendable`, because they
/// cross threads on their way into the store.
public protocol Reducer<State, Action> {
  /// The state the reducer changes.
  associatedtype State
  /// The actions the reducer handles.
  associatedtype Action: Sendable
  /// The type of ``body``: another reducer, or `Never` for reducers that implement
  /// ``reduce(into:action:)`` themselves.
  associatedtype Body

  /// Changes `state` for `action` and returns the effect to run.
  func reduce(into state: inout State, action: Action) -> Effect<Action>

  /// The reducer this one is built from.
  @ReducerBuilder<State, Action>
  var body: Body { get }
}

/// A convenience for the reducer type of a feature: `some ReducerOf<Self>`.
///
/// ```swift
/// var body: some ReducerOf<Self> {
///   Reduce { state, action in .none }
/// }
/// ```
public typealias ReducerOf<R: Reducer> = Reducer<R.State, R.Action>

extension Reducer where Body == Never {
  /// A reducer that implements ``reduce(into:action:)`` has no body.
  public var body: Body {
    fatalError(
      """
      "\(Self.self)" has no body: it implements "reduce(into:action:)". Do not call "body" \
      directly.
      """
    )
  }
}

extension Reducer where Body: Reducer, Body.State == State, Body.Action == Action {
  /// Runs ``body``.
  @inlinable
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    body.reduce(into: &state, action: action)
  }
}

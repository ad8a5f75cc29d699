/// The store of a feature, named after its reducer: `StoreOf<Counter>` is
/// `Store<Counter.State, Counter.Action>`.
///
/// ```swift
/// func run(_ store: StoreOf<Counter>) async {
///   await store.send(.incrementButtonTapped)
///   print(await store.state.count)
/// }
/// ```
///
/// As in TCA. A ``Store`` is an actor, so its state must be `Sendable`: `StoreOf` is available
/// for reducers whose state is.
public typealias StoreOf<R: Reducer> = Store<R.State, R.Action> where R.State: Sendable

import SpoolCore

/// The test store of a feature, named after its reducer: `TestStoreOf<Counter>` is
/// `TestStore<Counter.State, Counter.Action>`.
///
/// ```swift
/// func makeStore() -> TestStoreOf<Counter> {
///   TestStore(initialState: Counter.State()) { Counter() }
/// }
/// ```
///
/// As in TCA. A ``TestStore`` compares states and hands them between tasks, so `TestStoreOf` is
/// available for reducers whose state is `Equatable` and `Sendable`.
public typealias TestStoreOf<R: Reducer> = TestStore<R.State, R.Action>
where R.State: Equatable & Sendable

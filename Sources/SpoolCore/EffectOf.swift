/// The effect a feature's reducer returns, named after the reducer: `EffectOf<Counter>` is
/// `Effect<Counter.Action>`.
///
/// ```swift
/// extension Counter {
///   func fetchFact(for count: Int) -> EffectOf<Self> {
///     .run { [numberFact] send in
///       await send(.factResponse(try await numberFact.fetch(count)))
///     }
///   }
/// }
/// ```
///
/// As in TCA.
public typealias EffectOf<R: Reducer> = Effect<R.Action>

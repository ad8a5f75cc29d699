import Spool

/// A counter: the smallest feature with state, actions and an effect, written with `@Reducer`
/// (so `import Spool` alone must bring the macro and the `@CasePathable` it expands to).
@Reducer
public struct Counter {
  public struct State: Equatable, Sendable {
    public var count = 0

    public init(count: Int = 0) {
      self.count = count
    }
  }

  public enum Action: Equatable, Sendable {
    case incrementButtonTapped
    case incrementByEffectButtonTapped
  }

  public init() {}

  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .incrementButtonTapped:
      state.count += 1
      return .none
    case .incrementByEffectButtonTapped:
      return .send(.incrementButtonTapped)
    }
  }
}

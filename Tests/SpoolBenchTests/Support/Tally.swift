import Spool
import SpoolBench

/// A feature for the harness's tests: counts actions and sums their values, so that a check
/// can tell a lost action from a duplicated one; `.echo` answers through a `.run` effect.
struct Tally: Reducer {
  struct State: Equatable, Sendable, Codable {
    var count = 0
    var sum = 0
  }

  enum Action: Equatable, Sendable, Codable {
    case add(Int)
    case echo(Int)
  }

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .add(let value):
      state.count += 1
      state.sum &+= value
      return .none
    case .echo(let value):
      return .run { send in await send(.add(value)) }
    }
  }

  /// Every index of `0..<actions` once.
  static func check(_ state: State, _ actions: Int) throws {
    guard state.count == actions, state.sum == actions &* (actions &- 1) / 2 else {
      throw WorkloadCheckError("counted \(state.count) (sum \(state.sum)), expected \(actions)")
    }
  }
}

import Spool

/// A feature whose state records every action in order: a recovered state equals the original
/// only if every action was replayed once, in order.
struct Tally: Reducer {
  struct State: Codable, Equatable, Sendable {
    var values: [Int] = []
    var total = 0
  }

  enum Action: Codable, Equatable, Sendable {
    case add(Int)
    case reset
  }

  var body: some Reducer<State, Action> {
    Reduce { state, action in
      switch action {
      case .add(let value):
        state.values.append(value)
        state.total += value
      case .reset:
        state = State()
      }
      return .none
    }
  }
}

/// Another action type, whose rows a `Tally` journal must refuse to replay.
enum Foreign: Codable, Sendable {
  case rename(String, flag: Bool)
}

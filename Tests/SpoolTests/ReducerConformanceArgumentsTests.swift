import Foundation
import Spool
import Testing

/// `@Reducer(state:action:)` on an enum reducer, used as a user would: the generated `State`
/// and `Action` have the protocols asked for, synthesized from their cases.
@Reducer
struct Tally {
  struct State: Codable, Hashable, Sendable { var count = 0 }
  enum Action: Hashable, Sendable { case add }
  var body: some ReducerOf<Self> {
    Reduce { state, _ in
      state.count += 1
      return .none
    }
  }
}

@Reducer(
  state: .codable, .decodable, .encodable, .equatable, .hashable, .sendable,
  action: .equatable, .hashable, .sendable
)
enum TallyDestination {
  case first(Tally)
  case second(Tally)
}

@Suite struct ReducerConformanceArgumentsTests {
  func requiresState(_: some Codable & Hashable & Sendable) {}
  func requiresAction(_: some Hashable & Sendable) {}

  @Test func theGeneratedEnumsHaveTheConformancesAskedFor() throws {
    let state = TallyDestination.State.second(Tally.State(count: 3))
    requiresState(state)
    requiresAction(TallyDestination.Action.first(.add))
    let decoded = try JSONDecoder().decode(
      TallyDestination.State.self, from: JSONEncoder().encode(state))
    #expect(decoded == state)
    #expect(Set([state, decoded, .first(Tally.State())]).count == 2)
    #expect(TallyDestination.Action.first(.add) != .second(.add))
  }
}

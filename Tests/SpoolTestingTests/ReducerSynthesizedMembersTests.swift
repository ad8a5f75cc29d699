import Foundation
import Spool
import SpoolTesting
import Testing

/// `@Reducer` on a struct that declares no `body`, and no `State` or `Action`: as in TCA, it
/// gets an empty `State` and `Action` and a `body` that does nothing, and such a feature runs
/// under a parent as any other.
@Suite struct ReducerSynthesizedMembersTests {
  /// Neither `State` nor `Action`: TCA's `@Reducer struct Feature {}`.
  @Reducer
  struct Placeholder {}

  /// A `State` but no `Action` and no body: a feature that only holds data.
  @Reducer
  struct Banner {
    struct State: Equatable, Sendable {
      var text = ""
    }
  }

  @Reducer
  struct Page {
    struct State: Equatable, Sendable {
      var banner = Banner.State()
      var placeholder = Placeholder.State()
      var visits = 0
    }
    @CasePathable
    enum Action: Equatable, Sendable {
      case banner(Banner.Action)
      case placeholder(Placeholder.Action)
      case visited(String)
    }
    var body: some ReducerOf<Self> {
      Scope(state: \.banner, action: \.banner) { Banner() }
      Scope(state: \.placeholder, action: \.placeholder) { Placeholder() }
      Reduce { state, action in
        switch action {
        case let .visited(text):
          state.visits += 1
          state.banner.text = text
          return .none
        case .banner, .placeholder:
          return .none
        }
      }
    }
  }

  /// The synthesized `State` is `Codable`, `Equatable`, `Hashable` and `Sendable`, as TCA's;
  /// the synthesized `Action` has no case and is `Equatable`, `Hashable` and `Sendable`.
  @Test func theEmptyMembersHaveTCAsConformances() throws {
    func requireValue<T: Codable & Equatable & Hashable & Sendable>(_: T.Type) {}
    func requireAction<T: Equatable & Hashable & Sendable>(_: T.Type) {}
    requireValue(Placeholder.State.self)
    requireAction(Placeholder.Action.self)
    requireAction(Banner.Action.self)
    let state = Placeholder.State()
    let data = try JSONEncoder().encode(state)
    #expect(String(decoding: data, as: UTF8.self) == "{}")
    #expect(try JSONDecoder().decode(Placeholder.State.self, from: data) == state)
    #expect(Set([state, Placeholder.State()]).count == 1)
  }

  @Test func aParentRunsTheSynthesizedChildren() async {
    let store = TestStore(initialState: Page.State()) { Page() }
    await store.send(.visited("Welcome")) {
      $0.visits = 1
      $0.banner.text = "Welcome"
    }
    await store.finish()
  }
}

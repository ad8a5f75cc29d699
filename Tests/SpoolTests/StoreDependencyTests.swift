import Dependencies
import Spool
import Testing

/// A dependency whose value names where it was set, to see which one a reducer read.
private struct Origin: DependencyKey, Sendable {
  var name: String
  static let liveValue = Origin(name: "live")
  static let testValue = Origin(name: "default")
}

extension DependencyValues {
  fileprivate var origin: Origin {
    get { self[Origin.self] }
    set { self[Origin.self] = newValue }
  }
}

/// Records the origin it sees on every action.
private struct OriginFeature: Reducer {
  struct State: Equatable, Sendable { var seen: [String] = [] }
  enum Action: Equatable, Sendable { case look }
  @Dependency(\.origin) var origin

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    state.seen.append(origin.name)
    return .none
  }
}

/// A reducer sees the dependencies of its store, whatever the sender's task has: `send` skips
/// pushing them only when the sender already has exactly the same ones.
@Suite struct StoreDependencyTests {
  @Test func aStoreWithOverridesKeepsThemForEverySender() async {
    let store = Store(initialState: OriginFeature.State()) {
      OriginFeature()
    } withDependencies: {
      $0.origin.name = "store"
    }
    await store.send(.look)
    await withDependencies {
      $0.origin.name = "sender"
    } operation: {
      await store.send(.look)
    }
    store.enqueue(.look)
    await store.finish()
    #expect(await store.state.seen == ["store", "store", "store"])
  }

  @Test func aStoreWithoutOverridesIgnoresTheSendersOverrides() async {
    let store = Store(initialState: OriginFeature.State()) { OriginFeature() }
    await store.send(.look)
    await withDependencies {
      $0.origin.name = "sender"
    } operation: {
      await store.send(.look)
    }
    await store.send(.look)
    #expect(await store.state.seen == ["default", "default", "default"])
  }

  @Test func aStoreMadeInsideOverridesKeepsThemOutside() async {
    let store = withDependencies {
      $0.origin.name = "creator"
    } operation: {
      Store(initialState: OriginFeature.State()) { OriginFeature() }
    }
    await store.send(.look)
    #expect(await store.state.seen == ["creator"])
  }
}

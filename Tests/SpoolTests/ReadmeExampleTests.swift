// The examples of README.md ("Quick start": the feature, its store, its test), kept here so
// that they compile and work. When you change one, change the other.
import Dependencies
import Spool
import SpoolTesting
import Testing

// --- README example begins ---
struct NumberFactClient: Sendable {
  var fetch: @Sendable (Int) async throws -> String
}

extension NumberFactClient: DependencyKey {
  static let liveValue = NumberFactClient { number in "\(number) is a good number." }
}

@Reducer
struct CounterFeature {
  struct State: Equatable, Sendable {
    var count = 0
    var fact: String?
  }

  enum Action: Equatable, Sendable {
    case incrementButtonTapped
    case factButtonTapped
    case factResponse(String)
  }

  @Dependency(NumberFactClient.self) var numberFact

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .incrementButtonTapped:
        state.count += 1
        state.fact = nil
        return .none

      case .factButtonTapped:
        return .run { [count = state.count, numberFact] send in
          let fact = try await numberFact.fetch(count)
          await send(.factResponse(fact))
        }

      case let .factResponse(fact):
        state.fact = fact
        return .none
      }
    }
  }
}

func runCounter() async -> CounterFeature.State {
  let store = Store(initialState: CounterFeature.State()) {
    CounterFeature()
  } withDependencies: {
    $0[NumberFactClient.self].fetch = { "\($0) is the number of the day." }
  }

  await store.send(.incrementButtonTapped)
  store.enqueue(.incrementButtonTapped)   // fire-and-forget, from any thread
  await store.send(.factButtonTapped)
  await store.finish()                    // every effect has ended
  return await store.state                // count: 2, fact: "2 is the number of the day."
}
// --- README example ends ---

// --- README test begins ---
@Test func numberFact() async {
  let store = TestStore(initialState: CounterFeature.State()) {
    CounterFeature()
  } withDependencies: {
    $0[NumberFactClient.self].fetch = { "\($0) is a good number." }
  }

  await store.send(.incrementButtonTapped) {
    $0.count = 1
  }
  await store.send(.factButtonTapped)
  await store.receive(.factResponse("1 is a good number.")) {
    $0.fact = "1 is a good number."
  }
}
// --- README test ends ---

@Suite struct ReadmeExampleTests {
  @Test func theReadmeExampleWorks() async {
    let state = await runCounter()
    #expect(state == CounterFeature.State(count: 2, fact: "2 is the number of the day."))
  }
}

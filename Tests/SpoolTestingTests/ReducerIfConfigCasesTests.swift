import Spool
import SpoolTesting
import Testing

/// `#if` blocks around the cases of an `@Reducer` enum: each case, its `State` and `Action`
/// cases and its reducer exist exactly when its clause is active, on a test store and on a live
/// store. The inactive clauses name types that exist nowhere, so the suite compiles only if
/// `@Reducer` carried the conditions into what it generated.
@Suite struct ReducerIfConfigCasesTests {
  /// What an ephemeral case offers.
  struct Prompt: Equatable, Sendable {
    enum Action: Equatable, Sendable {
      case confirm
    }
    var message: String
  }

  @Reducer
  struct Tally {
    struct State: Equatable, Sendable {
      var count = 0
    }
    enum Action: Equatable, Sendable {
      case increment
    }
    var body: some ReducerOf<Self> {
      Reduce { state, action in
        switch action {
        case .increment:
          state.count += 1
          return .none
        }
      }
    }
  }

  @Reducer
  enum Destination {
    case local(Tally)
    #if os(Linux)
      case server(Tally)
    #elseif SPOOL_UNDEFINED_CONDITION
      case desktop(TypeThatExistsNowhere)
    #else
      case elsewhere(Tally)
    #endif
    #if SPOOL_UNDEFINED_CONDITION
      case debugOnly(AnotherTypeThatExistsNowhere)
      @ReducerCaseEphemeral
      case undefinedPrompt(PromptThatExistsNowhere)
    #else
      @ReducerCaseEphemeral
      case prompt(Prompt)
      #if !SPOOL_UNDEFINED_CONDITION
        case idle
      #endif
    #endif
  }

  @Reducer
  struct Host {
    struct State: Equatable, Sendable {
      @Presents var destination: Destination.State?
    }
    enum Action: Equatable, Sendable {
      case destination(PresentationAction<Destination.Action>)
      case show(Destination.State)
    }
    var body: some ReducerOf<Self> {
      Reduce { state, action in
        switch action {
        case .destination:
          return .none
        case let .show(destination):
          state.destination = destination
          return .none
        }
      }
      .ifLet(\.$destination, action: \.destination)
    }
  }

  /// The platform's case runs its reducer; the case that needs the other platform does not
  /// exist here.
  @Test func theActiveClausesCaseRunsItsReducer() async {
    let store = TestStore(initialState: Host.State()) { Host() }
    #if os(Linux)
      await store.send(.show(.server(Tally.State()))) {
        $0.destination = .server(Tally.State())
      }
      await store.send(.destination(.presented(.server(.increment)))) {
        $0.destination = .server(Tally.State(count: 1))
      }
    #else
      await store.send(.show(.elsewhere(Tally.State()))) {
        $0.destination = .elsewhere(Tally.State())
      }
      await store.send(.destination(.presented(.elsewhere(.increment)))) {
        $0.destination = .elsewhere(Tally.State(count: 1))
      }
    #endif
  }

  /// The ephemeral case of an `#else` clause is dismissed after its action, and the nested
  /// clause's ignored case holds state only.
  @Test func casesOfElseAndNestedClauses() async {
    let store = TestStore(initialState: Host.State()) { Host() }
    await store.send(.show(.prompt(Prompt(message: "Restart?")))) {
      $0.destination = .prompt(Prompt(message: "Restart?"))
    }
    await store.send(.destination(.presented(.prompt(.confirm)))) {
      $0.destination = nil
    }
    await store.send(.show(.idle)) {
      $0.destination = .idle
    }
    #expect(Destination.State.prompt(Prompt(message: ""))._isEphemeral)
    #expect(!Destination.State.idle._isEphemeral)
    #expect(!Destination.State.local(Tally.State())._isEphemeral)
  }

  /// The same on a live store, through the presentation `ifLet` that runs the enum's body.
  @Test func onALiveStore() async {
    let store = Store(initialState: Host.State()) { Host() }
    #if os(Linux)
      await store.send(.show(.server(Tally.State())))
      await store.send(.destination(.presented(.server(.increment))))
      #expect(await store.state.destination == .server(Tally.State(count: 1)))
    #else
      await store.send(.show(.elsewhere(Tally.State())))
      await store.send(.destination(.presented(.elsewhere(.increment))))
      #expect(await store.state.destination == .elsewhere(Tally.State(count: 1)))
    #endif
  }
}

extension ReducerIfConfigCasesTests.Destination.State: Equatable {}
extension ReducerIfConfigCasesTests.Destination.Action: Equatable {}

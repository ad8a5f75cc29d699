import Spool
import SpoolTesting
import Testing

/// `@ReducerCaseEphemeral` and `@ReducerCaseIgnored` cases of an `@Reducer` enum, presented
/// through `ifLet(\.$destination, action: \.destination)` without a closure, on the exhaustive
/// test store and on a live store: an action sent to the ephemeral case reaches the parent and
/// then dismisses it (TCA's alert behaviour); an ignored case holds state and takes no action.
@Suite struct ReducerCaseAttributesTests {
  /// A value presented briefly, whose actions are the buttons it offers: Spool's stand-in for
  /// TCA's `AlertState`.
  struct Prompt<Button: Equatable & Sendable>: Equatable, Sendable {
    typealias Action = Button
    var message: String
  }

  @Reducer
  struct Rename {
    struct State: Equatable, Sendable {
      var name: String
    }
    enum Action: Equatable, Sendable {
      case nameChanged(String)
    }
    var body: some ReducerOf<Self> {
      Reduce { state, action in
        switch action {
        case let .nameChanged(name):
          state.name = name
          return .none
        }
      }
    }
  }

  @Reducer
  enum Destination {
    case rename(Rename)
    @ReducerCaseEphemeral
    case confirmDeletion(Prompt<ConfirmDeletion>)
    @ReducerCaseIgnored
    case preview(String)
    case welcome

    enum ConfirmDeletion: Equatable, Sendable {
      case delete
      case keep
      case renameInstead
    }
  }

  @Reducer
  struct Shelf {
    struct State: Equatable, Sendable {
      var items: [String]
      @Presents var destination: Destination.State?
    }
    enum Action: Equatable, Sendable {
      case deleteTapped(String)
      case destination(PresentationAction<Destination.Action>)
      case previewTapped(String)
      case welcomeShown
    }
    var body: some ReducerOf<Self> {
      Reduce { state, action in
        switch action {
        case let .deleteTapped(item):
          state.destination = .confirmDeletion(Prompt(message: "Delete \(item)?"))
          return .none
        case .destination(.presented(.confirmDeletion(.delete))):
          state.items.removeLast()
          return .none
        case .destination(.presented(.confirmDeletion(.renameInstead))):
          state.destination = .rename(Rename.State(name: state.items.last ?? ""))
          return .none
        case .destination:
          return .none
        case let .previewTapped(item):
          state.destination = .preview(item)
          return .none
        case .welcomeShown:
          state.destination = .welcome
          return .none
        }
      }
      .ifLet(\.$destination, action: \.destination)
    }
  }

  @Test func anEphemeralActionReachesTheParentThenDismisses() async {
    let store = TestStore(initialState: Shelf.State(items: ["Milk", "Eggs"])) { Shelf() }
    await store.send(.deleteTapped("Eggs")) {
      $0.destination = .confirmDeletion(Prompt(message: "Delete Eggs?"))
    }
    await store.send(.destination(.presented(.confirmDeletion(.delete)))) {
      $0.items = ["Milk"]
      $0.destination = nil
    }
  }

  @Test func anEphemeralActionTheParentIgnoresStillDismisses() async {
    let store = TestStore(initialState: Shelf.State(items: ["Milk"])) { Shelf() }
    await store.send(.deleteTapped("Milk")) {
      $0.destination = .confirmDeletion(Prompt(message: "Delete Milk?"))
    }
    await store.send(\.destination.presented.confirmDeletion, .keep) {
      $0.destination = nil
    }
  }

  /// The parent presented another case in response: that one stays, and runs its reducer.
  @Test func anotherPresentationInResponseStays() async {
    let store = TestStore(initialState: Shelf.State(items: ["Milk"])) { Shelf() }
    await store.send(.deleteTapped("Milk")) {
      $0.destination = .confirmDeletion(Prompt(message: "Delete Milk?"))
    }
    await store.send(.destination(.presented(.confirmDeletion(.renameInstead)))) {
      $0.destination = .rename(Rename.State(name: "Milk"))
    }
    // A reducer case is not ephemeral: its actions leave it presented.
    await store.send(\.destination.presented.rename.nameChanged, "Oat milk") {
      $0.destination = .rename(Rename.State(name: "Oat milk"))
    }
    await store.send(.destination(.dismiss)) {
      $0.destination = nil
    }
  }

  /// Ignored cases, marked or without a single value, hold state that no reducer runs; they are
  /// dismissed like any destination.
  @Test func ignoredCasesHoldStateOnly() async {
    let store = TestStore(initialState: Shelf.State(items: [])) { Shelf() }
    await store.send(.previewTapped("Milk")) {
      $0.destination = .preview("Milk")
    }
    await store.send(.destination(.dismiss)) {
      $0.destination = nil
    }
    await store.send(.welcomeShown) {
      $0.destination = .welcome
    }
    await store.send(.destination(.dismiss)) {
      $0.destination = nil
    }
  }

  /// The generated enums: an ephemeral case's action is its value's `Action`, an ignored
  /// case's holds `Never`; both are case key paths of `State` and `Action`, as in TCA.
  @Test func theGeneratedCases() {
    let state = Destination.State.confirmDeletion(Prompt(message: "Sure?"))
    #expect(state.confirmDeletion == Prompt(message: "Sure?"))
    #expect(state._isEphemeral)
    #expect(!Destination.State.preview("Milk")._isEphemeral)
    #expect(!Destination.State.welcome._isEphemeral)
    #expect(!Destination.State.rename(Rename.State(name: ""))._isEphemeral)
    let action = Destination.Action.confirmDeletion(.keep)
    #expect(action.confirmDeletion == .keep)
    #expect(action.preview == nil)
    #expect(action[case: \.welcome] == nil)
  }

  /// The same behaviour on a live `Store`.
  @Test func onALiveStore() async {
    let store = Store(initialState: Shelf.State(items: ["Milk", "Eggs"])) { Shelf() }
    await store.send(.deleteTapped("Eggs"))
    #expect(await store.state.destination == .confirmDeletion(Prompt(message: "Delete Eggs?")))
    await store.send(.destination(.presented(.confirmDeletion(.delete))))
    let state = await store.state
    #expect(state.items == ["Milk"])
    #expect(state.destination == nil)
  }
}

extension ReducerCaseAttributesTests.Destination.State: Equatable {}
extension ReducerCaseAttributesTests.Destination.Action: Equatable {}

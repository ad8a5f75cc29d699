import Dependencies
import Spool
import SpoolTesting
import Testing

/// `dismiss()` from a child that the test store's root feature runs without a presentation
/// (`ifLet` on a plain optional, `forEach` on an identified array): as in TCA, it neither
/// dismisses the test store nor fails the test. A presentation around such a child is still
/// the one its `dismiss()` dismisses.
@Suite struct DismissTests {
  @Reducer
  struct ChildFeature {
    struct State: Equatable, Sendable, Identifiable {
      var id = 0
    }
    enum Action: Equatable, Sendable {
      case donePressed
    }
    @Dependency(\.dismiss) var dismiss
    var body: some Reducer<State, Action> {
      Reduce { state, action in
        switch action {
        case .donePressed:
          return .run { send in
            await self.dismiss()
          }
        }
      }
    }
  }

  @Reducer
  struct ParentFeature {
    struct State: Equatable, Sendable {
      var childFeature: ChildFeature.State?
    }
    enum Action: Equatable, Sendable {
      case presentChild
      case childFeature(ChildFeature.Action)
    }
    var body: some Reducer<State, Action> {
      Reduce { state, action in
        switch action {
        case .presentChild:
          state.childFeature = ChildFeature.State()
          return .none

        case .childFeature:
          return .none
        }
      }.ifLet(\.childFeature, action: \.childFeature) {
        ChildFeature()
      }
    }
  }

  // TCA's `IsPresentedTests.testDismissWithoutPresentationTools`, ported: the second send would
  // fail with "Can't send action to dismissed test store." if the child's `dismiss()` had
  // dismissed the test store, and an action it sent would go unreceived.
  @Test func dismissWithoutPresentationTools() async {
    let store = TestStore(initialState: .init()) {
      ParentFeature()
    }

    await store.send(.presentChild) {
      $0.childFeature = ChildFeature.State()
    }
    await store.send(.childFeature(.donePressed))
    await store.send(.childFeature(.donePressed))
  }

  // TCA's `DismissTests.testIsPresented_TestStore`, ported: the test store's root feature is
  // not presented.
  @Test func isPresentedTestStore() async {
    let store = TestStore(initialState: Bool?.none) {
      Reduce<Bool?, Void> { state, _ in
        @Dependency(\.isPresented) var isPresented
        state = isPresented
        return .none
      }
    }

    await store.send(()) {
      $0 = false
    }
  }

  @Reducer
  struct ListFeature {
    struct State: Equatable, Sendable {
      var rows: IdentifiedArrayOf<ChildFeature.State> = []
    }
    enum Action: Equatable, Sendable {
      case rows(IdentifiedActionOf<ChildFeature>)
    }
    var body: some Reducer<State, Action> {
      EmptyReducer()
        .forEach(\.rows, action: \.rows) { ChildFeature() }
    }
  }

  @Test func aRowOfAnIdentifiedArrayDoesNotDismissTheTestStore() async {
    let store = TestStore(initialState: ListFeature.State(rows: [ChildFeature.State(id: 7)])) {
      ListFeature()
    }
    await store.send(.rows(.element(id: 7, action: .donePressed)))
    await store.send(.rows(.element(id: 7, action: .donePressed)))
  }

  @Reducer
  struct Sheet {
    struct State: Equatable, Sendable {
      var childFeature: ChildFeature.State? = ChildFeature.State()
    }
    enum Action: Equatable, Sendable {
      case childFeature(ChildFeature.Action)
    }
    var body: some Reducer<State, Action> {
      EmptyReducer()
        .ifLet(\.childFeature, action: \.childFeature) { ChildFeature() }
    }
  }

  @Reducer
  struct Host {
    struct State: Equatable, Sendable {
      @Presents var sheet: Sheet.State?
    }
    enum Action: Equatable, Sendable {
      case sheet(PresentationAction<Sheet.Action>)
    }
    var body: some Reducer<State, Action> {
      EmptyReducer()
        .ifLet(\.$sheet, action: \.sheet) { Sheet() }
    }
  }

  // As in TCA, a child run without a presentation inside a presented feature dismisses that
  // feature: the test store's rule for its root feature's children does not reach it.
  @Test func aPlainChildInsideAPresentationDismissesThePresentation() async {
    let store = TestStore(initialState: Host.State(sheet: Sheet.State())) {
      Host()
    }
    await store.send(.sheet(.presented(.childFeature(.donePressed))))
    await store.receive(.sheet(.dismiss)) {
      $0.sheet = nil
    }
  }
}

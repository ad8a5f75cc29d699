import Clocks
import ConcurrencyExtras
import Spool
import Testing

/// Presentation, stacks and `dismiss` on the live store. As in `ChildEffectTests`, each check
/// reads a `StoreTask` right after the `send` whose reduce cancelled (or did not cancel) it.
@Suite struct PresentationTests {
  func makeStore(_ state: Inbox.State = Inbox.State()) -> Store<Inbox.State, Inbox.Action> {
    Store(initialState: state) {
      Inbox()
    } withDependencies: {
      $0.continuousClock = TestClock()
    }
  }

  // MARK: @Presents and ifLet

  @Test func presentingRunsTheChildOnPresentedActions() async {
    let store = makeStore()
    await store.send(.compose(seconds: 1))
    await store.send(\.destination.presented.editor.tick)
    await store.send(.destination(.presented(.editor(.tick))))
    #expect(await store.state.destination == .editor(Editor.State(ticks: 2)))
  }

  @Test func dismissSetsTheStateToNilAndCancelsTheChildsEffects() async {
    let store = makeStore()
    await store.send(.compose(seconds: 1))
    let child = await store.send(\.destination.presented.editor.listen)
    await store.send(.destination(.presented(.editor(.tick))))
    #expect(!child.isEmpty && !child.isCancelled)
    await store.send(\.destination.dismiss)
    #expect(child.isCancelled)
    let state = await store.state
    #expect(state.destination == nil)
    #expect(state.dismissalsSeen == 1)
  }

  @Test func theParentSettingNilCancelsTheChildsEffects() async {
    let store = makeStore()
    await store.send(.compose(seconds: 1))
    let child = await store.send(\.destination.presented.editor.listen)
    await store.send(.close)
    #expect(child.isCancelled)
  }

  @Test func presentingAnotherCaseCancelsTheOldChildsEffects() async {
    let store = makeStore()
    await store.send(.compose(seconds: 1))
    let editor = await store.send(\.destination.presented.editor.listen)
    // The same case again, with the same (non-Identifiable) state type: the same child.
    await store.send(.compose(seconds: 2))
    #expect(!editor.isCancelled)
    await store.send(.preview)
    #expect(editor.isCancelled)
  }

  @Test func presentingAnotherIDCancelsTheOldChildsEffects() async {
    let store = Store(initialState: Viewer.State()) { Viewer() }
    await store.send(.show(id: 1))
    let first = await store.send(\.child.presented.listen)
    await store.send(.show(id: 1))
    #expect(!first.isCancelled)
    await store.send(.show(id: 2))
    #expect(first.isCancelled)
    await store.shutdown()
  }

  @Test func aChildThatChangesItsOwnIDHasItsOldEffectsCancelled() async {
    let store = Store(initialState: Viewer.State()) { Viewer() }
    await store.send(.show(id: 1))
    let first = await store.send(\.child.presented.listen)
    // The child renumbers itself: the child of ID 1 is gone, and the effect it returned for
    // this action runs as the child of ID 2.
    let renumbered = await store.send(.child(.presented(.renumber(2))))
    #expect(first.isCancelled)
    #expect(!renumbered.isEmpty && !renumbered.isCancelled)
    await store.send(.show(id: 2))
    #expect(!renumbered.isCancelled)
    await store.send(.show(id: 3))
    #expect(renumbered.isCancelled)
    await store.shutdown()
  }

  @Test func childrenRemovedBesideTheIfLetHaveTheirEffectsCancelled() async {
    let store = Store(initialState: Desk.State(editor: Editor.State())) {
      Desk()
    } withDependencies: {
      $0.continuousClock = TestClock()
    }
    let removedBefore = await store.send(\.editor.presented.listen)
    // Removed before the `ifLet` runs: it sees the child gone in the same action.
    await store.send(.closeBefore)
    #expect(removedBefore.isCancelled)

    await store.send(.open)
    let removedAfter = await store.send(\.editor.presented.listen)
    // Removed after the `ifLet` ran: it sees the child gone at its next action.
    await store.send(.closeAfter)
    #expect(!removedAfter.isCancelled)
    await store.send(.nothing)
    #expect(removedAfter.isCancelled)

    // Presented beside it, then acting: the child keeps the effect it returned.
    await store.send(.open)
    let presentedBeside = await store.send(\.editor.presented.listen)
    await store.send(.nothing)
    #expect(!presentedBeside.isEmpty && !presentedBeside.isCancelled)
    await store.shutdown()
  }

  @Test func dismissFromAChildsEffectDismissesIt() async {
    let store = makeStore()
    await store.send(.compose(seconds: 1))
    let listening = await store.send(\.destination.presented.editor.listen)
    // `finish()` returns once what the effect sent (the dismissal) has been reduced.
    await store.send(\.destination.presented.editor.closeTapped).finish()
    #expect(listening.isCancelled)
    let state = await store.state
    #expect(state.destination == nil)
    #expect(state.dismissalsSeen == 1)
  }

  @Test func aPresentedActionWithNothingPresentedIsReportedAndIgnored() async {
    let store = makeStore()
    await withKnownIssue {
      await store.send(.destination(.presented(.editor(.tick))))
    } matching: {
      // TCA's opening, which its users' matchers look for.
      message(of: $0).hasPrefix("An \"ifLet\" at \"SpoolTests/")
        && message(of: $0).contains(
          "\" received a presentation action when destination state was absent. …")
    }
    await store.send(.compose(seconds: 1))
    #expect(await store.state.destination == .editor(Editor.State()))
  }

  @Test func aDismissWithNothingPresentedDoesNothing() async {
    let store = makeStore()
    await store.send(.destination(.dismiss))
    #expect(await store.state == Inbox.State())
  }

  @Test func dismissOutsideAPresentationIsReportedAndDoesNothing() async {
    let store = Store(initialState: Editor.State()) { Editor() }
    await withKnownIssue {
      await store.send(.closeTapped).finish()
    } matching: { issue in
      // TCA's words open the report, so that matchers written for TCA's still match.
      let text = String(describing: issue)
      return text.contains("A reducer requested dismissal at \"")
        && text.contains("but couldn't be dismissed. …")
    }
    await store.finish()
    #expect(await store.state == Editor.State())
  }

  // The live side of TCA's `testDismissWithoutPresentationTools`: a child that `ifLet` runs on
  // a plain optional has no presentation to dismiss, so its `dismiss()` is reported, as TCA's
  // live store reports it, and the child stays.
  @Test func dismissFromAChildWithoutAPresentationIsReportedAndDoesNothing() async {
    let state = Drafts.State(draft: Editor.State())
    let store = Store(initialState: state) { Drafts() }
    await withKnownIssue {
      await store.send(.draft(.closeTapped)).finish()
    } matching: { String(describing: $0).contains("but couldn't be dismissed. …") }
    await store.finish()
    #expect(await store.state == state)
  }

  @Test func anOverriddenDismissRunsInsteadOfThePresentations() async {
    let dismissed = LockIsolated(0)
    let store = Store(initialState: Editor.State()) {
      Editor()
    } withDependencies: {
      $0.dismiss = DismissEffect { dismissed.withValue { $0 += 1 } }
    }
    await store.send(.closeTapped).finish()
    #expect(dismissed.value == 1)
  }

  @Test func aParentThatPresentsAnotherChildOnDismissalKeepsIt() async {
    let store = Store(initialState: Redirect.State(destination: .editor(Editor.State()))) {
      Redirect()
    } withDependencies: {
      $0.continuousClock = TestClock()
    }
    let editor = await store.send(\.destination.presented.editor.listen)
    await store.send(.destination(.dismiss))
    #expect(await store.state.destination == .preview(Editor.State()))
    #expect(editor.isCancelled)
    await store.send(.destination(.dismiss))
    #expect(await store.state.destination == nil)
  }

  @Test func aCaseKeyPathReachesThePresentedActionWithoutPresented() async {
    let store = makeStore()
    await store.send(.compose(seconds: 1))
    await store.send(\.destination.editor.tick)
    #expect(await store.state.destination == .editor(Editor.State(ticks: 1)))
    let path: CaseKeyPath<Inbox.Action, Editor.Action> = \.destination.editor
    #expect(Inbox.Action.destination(.presented(.editor(.tick)))[case: path] == .tick)
    #expect(Inbox.Action.destination(.dismiss)[case: path] == nil)
  }

  // MARK: StackState and forEach

  @Test func pushElementActionAndPopCancelTheElementsEffects() async {
    let store = makeStore()
    await store.send(.path(.push(id: 0, state: Editor.State())))
    await store.send(.push(seconds: 1))
    let first = await store.send(\.path[id: 0].listen)
    let second = await store.send(\.path[id: 1].listen)
    await store.send(\.path[id: 1].tick)
    #expect(await store.state.path[id: 1]?.ticks == 1)
    #expect(await store.state.path.ids == [0, 1])
    await store.send(.path(.popFrom(id: 1)))
    #expect(second.isCancelled)
    #expect(!first.isCancelled)
    await store.send(.popAll)
    #expect(first.isCancelled)
    // IDs are not reused: the next push is #2.
    await store.send(.push(seconds: 1))
    #expect(await store.state.path.ids == [2])
  }

  @Test func poppingFromAnIDPopsEveryElementAboveIt() async {
    let store = makeStore(Inbox.State(path: [Editor.State(), Editor.State(), Editor.State()]))
    let top = await store.send(\.path[id: 2].listen)
    let middle = await store.send(\.path[id: 1].listen)
    let bottom = await store.send(\.path[id: 0].listen)
    await store.send(.path(.popFrom(id: 1)))
    #expect(top.isCancelled && middle.isCancelled)
    #expect(!bottom.isCancelled)
    #expect(await store.state.path.ids == [0])
  }

  @Test func twoElementsWithTheSameCancelIDKeepEachOthersEffects() async {
    let store = makeStore(Inbox.State(path: [Editor.State(), Editor.State()]))
    let first = await store.send(\.path[id: 0].start)
    let second = await store.send(\.path[id: 1].start)
    #expect(!first.isCancelled && !second.isCancelled)
    let again = await store.send(\.path[id: 0].start)
    #expect(first.isCancelled)
    #expect(!second.isCancelled && !again.isCancelled)
  }

  @Test func dismissFromAnElementsEffectPopsIt() async {
    let store = makeStore(Inbox.State(path: [Editor.State(), Editor.State()]))
    let bottom = await store.send(\.path[id: 0].listen)
    // `finish()` returns once what the effect sent (the pop) has been reduced.
    await store.send(\.path[id: 1].closeTapped).finish()
    #expect(await store.state.path.ids == [0])
    #expect(!bottom.isCancelled)
  }

  @Test func elementsRemovedBesideTheForEachHaveTheirEffectsCancelled() async {
    let store = Store(initialState: Workbench.State(path: [Editor.State()])) {
      Workbench()
    } withDependencies: {
      $0.continuousClock = TestClock()
    }
    let removedBefore = await store.send(\.path[id: 0].listen)
    // Removed before the `forEach` runs: it sees the element gone in the same action.
    await store.send(.clearBefore)
    #expect(removedBefore.isCancelled)

    await store.send(.path(.push(id: 1, state: Editor.State())))
    let removedAfter = await store.send(\.path[id: 1].listen)
    // Removed after the `forEach` ran: it sees the element gone at its next action.
    await store.send(.clearAfter)
    #expect(!removedAfter.isCancelled)
    await store.send(.nothing)
    #expect(removedAfter.isCancelled)
  }

  @Test func stackMisuseIsReportedAndIgnored() async {
    let store = makeStore(Inbox.State(path: [Editor.State()]))
    await withKnownIssue {
      await store.send(\.path[id: 5].tick)
    } matching: {
      // TCA's wording, which its users' matchers look for.
      message(of: $0).contains("\" received an action for a missing element. …")
    }
    await withKnownIssue {
      await store.send(.path(.push(id: 0, state: Editor.State(seconds: 9))))
    } matching: {
      message(of: $0).contains(
        "\" received a \"push\" action for an element it already contains. …")
    }
    #expect(await store.state.path == [Editor.State()])
    // A pop of an ID already popped is a pop that lost a race: nothing to do.
    await store.send(.path(.popFrom(id: 7)))
    #expect(await store.state.path.ids == [0])
    await store.send(.path(.popFrom(id: 0)))
    await withKnownIssue {
      await store.send(.path(.push(id: 0, state: Editor.State(seconds: 9))))
    } matching: {
      message(of: $0).contains(
        "\" received a \"push\" action with an unexpected generational ID. …")
    }
    #expect(await store.state.path.isEmpty)
  }

  // MARK: Nested presentations

  @Test func dismissDismissesTheInnermostPresentationAroundTheEffect() async {
    let inbox = Inbox.State(destination: .editor(Editor.State()), path: [Editor.State()])
    let store = Store(initialState: Shell.State(inbox: inbox)) {
      Shell()
    } withDependencies: {
      $0.continuousClock = TestClock()
    }
    await store.send(\.inbox.presented.path[id: 0].closeTapped).finish()
    #expect(await store.state.inbox?.path.isEmpty == true)
    #expect(await store.state.inbox?.destination != nil)
    await store.send(\.inbox.presented.destination.presented.editor.closeTapped).finish()
    #expect(await store.state.inbox?.destination == nil)
    #expect(await store.state.inbox != nil)
  }

  // MARK: Store.send(\.case)

  @Test func theLiveStoreSendsByCaseKeyPath() async {
    let store = makeStore()
    await store.send(\.compose, 3)
    await store.send(\.push, 1)
    await store.send(\.close)
    let state = await store.state
    #expect(state.destination == nil)
    #expect(state.path == [Editor.State(seconds: 1)])
  }
}

/// An editor run by `ifLet` on a plain optional: no presentation around it.
private struct Drafts: Reducer {
  struct State: Equatable, Sendable {
    var draft: Editor.State?
  }

  @CasePathable
  enum Action: Equatable, Sendable {
    case draft(Editor.Action)
  }

  var body: some ReducerOf<Self> {
    EmptyReducer()
      .ifLet(\.draft, action: \.draft) { Editor() }
  }
}

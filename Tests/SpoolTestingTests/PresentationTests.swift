import Clocks
import Spool
import SpoolTesting
import Testing

/// Presentation, stacks and `dismiss` on the exhaustive test store, with a test clock: a
/// child's effect that outlived its dismissal or pop would fail the test at its end, and every
/// action an effect sends (`dismiss()` included) must be received.
@Suite struct PresentationTests {
  func makeStore(
    _ state: Inbox.State = Inbox.State(), clock: TestClock<Duration>
  ) -> TestStoreOf<Inbox> {
    TestStore(initialState: state) {
      Inbox()
    } withDependencies: {
      $0.continuousClock = clock
    }
  }

  // MARK: @Presents and ifLet

  @Test func presentingAndAChildsEffect() async {
    let clock = TestClock()
    let store = makeStore(clock: clock)
    await store.send(.compose(seconds: 2)) {
      $0.destination = .editor(Editor.State(seconds: 2))
    }
    await store.send(\.destination.presented.editor.start)
    await clock.advance(by: .seconds(2))
    await store.receive(\.destination.presented.editor.finished) {
      $0.destination = .editor(Editor.State(seconds: 2, finished: 1))
    }
  }

  @Test func dismissingCancelsTheChildsTimer() async {
    let clock = TestClock()
    let store = makeStore(clock: clock)
    await store.send(.compose(seconds: 1)) {
      $0.destination = .editor(Editor.State())
    }
    await store.send(\.destination.presented.editor.startTimer)
    await clock.advance(by: .seconds(1))
    await store.receive(\.destination.presented.editor.tick) {
      $0.destination = .editor(Editor.State(ticks: 1))
    }
    await store.send(.destination(.dismiss)) {
      $0.destination = nil
      $0.dismissalsSeen = 1
    }
    await clock.advance(by: .seconds(5))
  }

  @Test func replacingTheChildCancelsItsTimer() async {
    let clock = TestClock()
    let store = makeStore(clock: clock)
    await store.send(.compose(seconds: 1)) {
      $0.destination = .editor(Editor.State())
    }
    await store.send(\.destination.presented.editor.startTimer)
    await store.send(.preview) {
      $0.destination = .preview(Editor.State())
    }
    await clock.advance(by: .seconds(5))
  }

  @Test func dismissFromAChildsEffect() async {
    let clock = TestClock()
    let store = makeStore(clock: clock)
    await store.send(.compose(seconds: 1)) {
      $0.destination = .editor(Editor.State())
    }
    await store.send(\.destination.presented.editor.startTimer)
    await store.send(\.destination.presented.editor.closeTapped)
    await store.receive(\.destination.dismiss) {
      $0.destination = nil
      $0.dismissalsSeen = 1
    }
    await clock.advance(by: .seconds(5))
  }

  // MARK: StackState and forEach

  @Test func pushElementActionAndPop() async {
    let clock = TestClock()
    let store = makeStore(clock: clock)
    await store.send(.push(seconds: 1)) {
      $0.path.append(Editor.State())
    }
    await store.send(.path(.push(id: 1, state: Editor.State(seconds: 3)))) {
      $0.path[id: 1] = Editor.State(seconds: 3)
    }
    await store.send(\.path[id: 0].start)
    await store.send(\.path[id: 1].startTimer)
    await clock.advance(by: .seconds(1))
    await store.receive(\.path[id: 0].finished) {
      $0.path[id: 0]?.finished = 1
    }
    await store.receive(\.path[id: 1].tick) {
      $0.path[id: 1]?.ticks = 1
    }
    await store.send(.path(.popFrom(id: 1))) {
      $0.path.pop(from: 1)
    }
    await clock.advance(by: .seconds(5))
    await store.send(.popAll) {
      $0.path.removeAll()
    }
  }

  @Test func poppingCancelsAnElementsPendingWork() async {
    let clock = TestClock()
    let store = makeStore(Inbox.State(path: [Editor.State()]), clock: clock)
    await store.send(\.path[id: 0].start)
    await store.send(.path(.popFrom(id: 0))) {
      $0.path.removeAll()
    }
    await clock.advance(by: .seconds(5))
  }

  @Test func twoElementsWithTheSameCancelIDBothFinish() async {
    let clock = TestClock()
    let store = makeStore(
      Inbox.State(path: [Editor.State(seconds: 1), Editor.State(seconds: 2)]), clock: clock)
    await store.send(\.path[id: 0].start)
    await store.send(\.path[id: 1].start)
    await clock.advance(by: .seconds(2))
    await store.receive(\.path[id: 0].finished) {
      $0.path[id: 0]?.finished = 1
    }
    await store.receive(\.path[id: 1].finished) {
      $0.path[id: 1]?.finished = 1
    }
  }

  @Test func dismissFromAnElementsEffectPopsIt() async {
    let clock = TestClock()
    let store = makeStore(Inbox.State(path: [Editor.State(), Editor.State()]), clock: clock)
    await store.send(\.path[id: 1].startTimer)
    await store.send(\.path[id: 1].closeTapped)
    await store.receive(\.path.popFrom) {
      $0.path.popLast()
    }
    await clock.advance(by: .seconds(5))
  }

  // MARK: Diffs

  @Test func aWrongExpectationDiffsThePresentedChildsFields() async {
    let store = makeStore(clock: TestClock())
    await withKnownIssue {
      await store.send(.compose(seconds: 2)) {
        $0.destination = .editor(Editor.State(seconds: 3))
      }
    } matching: { issue in
      let text = String(describing: issue)
      return text.contains("−") && text.contains("seconds: 3") && text.contains("seconds: 2")
    }
  }

  @Test func aWrongExpectationDiffsTheStacksElementsByID() async {
    let store = makeStore(clock: TestClock())
    await withKnownIssue {
      await store.send(.push(seconds: 2)) {
        $0.path.append(Editor.State(seconds: 1))
      }
    } matching: { issue in
      let text = String(describing: issue)
      return text.contains("#0: Editor.State(") && text.contains("seconds: 1")
    }
  }
}

import Clocks
import Spool
import SpoolTesting
import Testing

/// Enum reducers (`@Reducer enum`) run by `ifLet` and `forEach` without a child reducer, on
/// the exhaustive test store with a test clock: a child's effect that outlived its dismissal or
/// pop would fail the test at its end. Each test runs `Mailroom` (no closures) and
/// `ClosureMailroom` (the closure forms given `Destination.body`).
@Suite struct CaseReducerTests {
  func makeStore(
    closures: Bool, _ state: Mailroom.State = Mailroom.State(), clock: TestClock<Duration>
  ) -> TestStoreOf<Mailroom> {
    if closures {
      return TestStore(initialState: state) {
        ClosureMailroom()
      } withDependencies: {
        $0.continuousClock = clock
      }
    }
    return TestStore(initialState: state) {
      Mailroom()
    } withDependencies: {
      $0.continuousClock = clock
    }
  }

  // MARK: ifLet(\.$destination, action:)

  @Test(arguments: [false, true])
  func aPresentedChildsEffect(closures: Bool) async {
    let clock = TestClock()
    let store = makeStore(closures: closures, clock: clock)
    await store.send(.compose(seconds: 2)) {
      $0.destination = .editor(Editor.State(seconds: 2))
    }
    await store.send(\.destination.presented.editor.start)
    await clock.advance(by: .seconds(2))
    await store.receive(\.destination.presented.editor.finished) {
      $0.destination = .editor(Editor.State(seconds: 2, finished: 1))
    }
  }

  @Test(arguments: [false, true])
  func dismissingCancelsThePresentedChildsTimer(closures: Bool) async {
    let clock = TestClock()
    let store = makeStore(closures: closures, clock: clock)
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
    }
    await clock.advance(by: .seconds(5))
  }

  @Test(arguments: [false, true])
  func presentingAnotherCaseCancelsThePendingWork(closures: Bool) async {
    let clock = TestClock()
    let store = makeStore(closures: closures, clock: clock)
    await store.send(.compose(seconds: 1)) {
      $0.destination = .editor(Editor.State())
    }
    await store.send(\.destination.presented.editor.start)
    await store.send(.preview) {
      $0.destination = .preview(Editor.State())
    }
    await clock.advance(by: .seconds(5))
  }

  @Test(arguments: [false, true])
  func dismissFromThePresentedChildsEffect(closures: Bool) async {
    let clock = TestClock()
    let store = makeStore(closures: closures, clock: clock)
    await store.send(.compose(seconds: 1)) {
      $0.destination = .editor(Editor.State())
    }
    await store.send(\.destination.presented.editor.startTimer)
    await store.send(\.destination.presented.editor.closeTapped)
    await store.receive(\.destination.dismiss) {
      $0.destination = nil
    }
    await clock.advance(by: .seconds(5))
  }

  // MARK: ifLet(\.sheet, action:)

  @Test(arguments: [false, true])
  func closingTheSheetCancelsItsTimer(closures: Bool) async {
    let clock = TestClock()
    let store = makeStore(closures: closures, clock: clock)
    await store.send(.openSheet) {
      $0.sheet = .editor(Editor.State())
    }
    await store.send(\.sheet.editor.startTimer)
    await clock.advance(by: .seconds(1))
    await store.receive(\.sheet.editor.tick) {
      $0.sheet = .editor(Editor.State(ticks: 1))
    }
    await store.send(.closeSheet) {
      $0.sheet = nil
    }
    await clock.advance(by: .seconds(5))
  }

  // MARK: forEach(\.path, action:)

  @Test(arguments: [false, true])
  func pushRunAndPopElementsOfEachCase(closures: Bool) async {
    let clock = TestClock()
    let store = makeStore(closures: closures, clock: clock)
    await store.send(.pushEditor(seconds: 1)) {
      $0.path.append(.editor(Editor.State()))
    }
    await store.send(.pushViewer) {
      $0.path.append(.viewer(Editor.State()))
    }
    await store.send(\.path[id: 0].editor.start)
    await store.send(\.path[id: 1].viewer.startTimer)
    await clock.advance(by: .seconds(1))
    await store.receive(\.path[id: 0].editor.finished) {
      $0.path[id: 0] = .editor(Editor.State(finished: 1))
    }
    await store.receive(\.path[id: 1].viewer.tick) {
      $0.path[id: 1] = .viewer(Editor.State(ticks: 1))
    }
    await store.send(.path(.popFrom(id: 1))) {
      $0.path.pop(from: 1)
    }
    await clock.advance(by: .seconds(5))
    await store.send(\.path[id: 0].editor.closeTapped)
    await store.receive(\.path.popFrom) {
      $0.path.removeAll()
    }
  }
}

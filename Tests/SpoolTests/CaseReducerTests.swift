import Clocks
import Spool
import Testing

/// Enum reducers (`@Reducer enum`) run by `ifLet` and `forEach` without a child reducer, on the
/// live store. Each test runs `Mailroom` (no closures) and `ClosureMailroom` (the closure forms
/// given `Destination.body`): the two must behave the same. As in `PresentationTests`, each
/// check reads a `StoreTask` right after the `send` whose reduce cancelled (or did not cancel)
/// it.
@Suite struct CaseReducerTests {
  func makeStore(
    closures: Bool, _ state: Mailroom.State = Mailroom.State()
  ) -> StoreOf<Mailroom> {
    if closures {
      return Store(initialState: state) {
        ClosureMailroom()
      } withDependencies: {
        $0.continuousClock = TestClock()
      }
    }
    return Store(initialState: state) {
      Mailroom()
    } withDependencies: {
      $0.continuousClock = TestClock()
    }
  }

  // MARK: ifLet(\.$destination, action:)

  @Test(arguments: [false, true])
  func thePresentedEnumReducerRunsItsCase(closures: Bool) async {
    let store = makeStore(closures: closures)
    await store.send(.compose(seconds: 1))
    await store.send(\.destination.presented.editor.tick)
    await store.send(.destination(.presented(.editor(.tick))))
    #expect(await store.state.destination == .editor(Editor.State(ticks: 2)))
    await store.send(.preview)
    await store.send(\.destination.presented.preview.tick)
    #expect(await store.state.destination == .preview(Editor.State(ticks: 1)))
  }

  @Test(arguments: [false, true])
  func dismissCancelsThePresentedChildsEffects(closures: Bool) async {
    let store = makeStore(closures: closures)
    await store.send(.compose(seconds: 1))
    let child = await store.send(\.destination.presented.editor.listen)
    #expect(!child.isEmpty && !child.isCancelled)
    await store.send(\.destination.dismiss)
    #expect(child.isCancelled)
    #expect(await store.state.destination == nil)
  }

  @Test(arguments: [false, true])
  func presentingAnotherCaseCancelsTheOldChildsEffects(closures: Bool) async {
    let store = makeStore(closures: closures)
    await store.send(.compose(seconds: 1))
    let editor = await store.send(\.destination.presented.editor.listen)
    await store.send(.compose(seconds: 2))
    #expect(!editor.isCancelled)
    await store.send(.preview)
    #expect(editor.isCancelled)
  }

  @Test(arguments: [false, true])
  func dismissFromThePresentedChildsEffectDismissesIt(closures: Bool) async {
    let store = makeStore(closures: closures)
    await store.send(.compose(seconds: 1))
    let listening = await store.send(\.destination.presented.editor.listen)
    // `finish()` returns once what the effect sent (the dismissal) has been reduced.
    await store.send(\.destination.presented.editor.closeTapped).finish()
    #expect(listening.isCancelled)
    #expect(await store.state.destination == nil)
  }

  @Test(arguments: [false, true])
  func aPresentedActionWithNothingPresentedIsReported(closures: Bool) async {
    let store = makeStore(closures: closures)
    await withKnownIssue {
      await store.send(\.destination.presented.editor.tick)
    }
    #expect(await store.state == Mailroom.State())
  }

  // MARK: ifLet(\.sheet, action:)

  @Test(arguments: [false, true])
  func settingTheOptionalStateToNilCancelsItsEffects(closures: Bool) async {
    let store = makeStore(closures: closures)
    await store.send(.openSheet)
    let child = await store.send(\.sheet.editor.listen)
    await store.send(\.sheet.editor.tick)
    #expect(await store.state.sheet == .editor(Editor.State(ticks: 1)))
    #expect(!child.isCancelled)
    await store.send(.closeSheet)
    #expect(child.isCancelled)
  }

  @Test(arguments: [false, true])
  func aChildActionWithNilStateIsReported(closures: Bool) async {
    let store = makeStore(closures: closures)
    await withKnownIssue {
      await store.send(\.sheet.editor.tick)
    }
    #expect(await store.state == Mailroom.State())
  }

  // MARK: forEach(\.path, action:)

  @Test(arguments: [false, true])
  func theStackRunsEachElementsCase(closures: Bool) async {
    let store = makeStore(closures: closures)
    await store.send(.pushEditor(seconds: 1))
    await store.send(.pushViewer)
    await store.send(\.path[id: 0].editor.tick)
    await store.send(\.path[id: 1].viewer.tick)
    await store.send(\.path[id: 1].viewer.tick)
    #expect(
      await store.state.path == [.editor(Editor.State(ticks: 1)), .viewer(Editor.State(ticks: 2))]
    )
  }

  @Test(arguments: [false, true])
  func poppingAnElementCancelsItsEffectsOnly(closures: Bool) async {
    let store = makeStore(closures: closures)
    await store.send(.pushEditor(seconds: 1))
    await store.send(.pushViewer)
    let bottom = await store.send(\.path[id: 0].editor.listen)
    let top = await store.send(\.path[id: 1].viewer.listen)
    await store.send(.path(.popFrom(id: 1)))
    #expect(top.isCancelled)
    #expect(!bottom.isCancelled)
    // `finish()` returns once what the effect sent (the pop) has been reduced.
    await store.send(\.path[id: 0].editor.closeTapped).finish()
    #expect(bottom.isCancelled)
    #expect(await store.state.path.isEmpty)
  }

  // MARK: Identifiable enum state

  @Test func anotherIDOfAPresentedEnumReducerIsAnotherChild() async {
    let store = Store(initialState: Album.State()) { Album() }
    await store.send(.show(id: 1))
    let first = await store.send(\.photo.presented.viewer.listen)
    await store.send(.show(id: 1))
    #expect(!first.isCancelled)
    await store.send(.show(id: 2))
    #expect(first.isCancelled)
    await store.shutdown()
  }

  @Test func anotherIDOfAnOptionalEnumReducerIsAnotherChild() async {
    let store = Store(initialState: Album.State()) { Album() }
    await store.send(.showCaption(id: 1))
    let first = await store.send(\.caption.viewer.listen)
    await store.send(.showCaption(id: 1))
    #expect(!first.isCancelled)
    await store.send(.showCaption(id: 2))
    #expect(first.isCancelled)
    await store.shutdown()
  }
}

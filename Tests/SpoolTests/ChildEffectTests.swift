import Clocks
import Spool
import Testing

/// Child effects end with their state, on the live store. Every check reads a `StoreTask`
/// right after the `send` whose reduce cancelled (or did not cancel) it: the store cancels an
/// ID while it carries out the effect of that reduce, so nothing has to run or be waited for.
@Suite struct ChildEffectTests {
  func makeStore(_ state: Downloads.State) -> Store<Downloads.State, Downloads.Action> {
    Store(initialState: state) {
      Downloads()
    } withDependencies: {
      $0.continuousClock = TestClock()
    }
  }

  // MARK: Effects end with their state

  @Test func removingARowCancelsItsEffectsOnly() async {
    let store = makeStore(Downloads.State(rows: [.init(id: 1), .init(id: 2)]))
    let row1 = await store.send(.rows(.element(id: 1, action: .listen)))
    let row2 = await store.send(.rows(.element(id: 2, action: .listen)))
    #expect(!row1.isEmpty && !row1.isCancelled)
    await store.send(.remove(id: 1))
    #expect(row1.isCancelled)
    #expect(!row2.isCancelled)
  }

  @Test func aParentActionThatKeepsTheRowsCancelsNothing() async {
    let store = makeStore(Downloads.State(rows: [.init(id: 1)]))
    let row1 = await store.send(.rows(.element(id: 1, action: .listen)))
    await store.send(.noop)
    await store.send(.rows(.element(id: 1, action: .tick)))
    #expect(!row1.isCancelled)
  }

  @Test func dismissingAnIfLetChildCancelsItsEffects() async {
    let store = makeStore(Downloads.State(detail: .init(id: 1)))
    let detail = await store.send(.detail(.listen))
    await store.send(.noop)
    #expect(!detail.isCancelled)
    await store.send(.dismiss)
    #expect(detail.isCancelled)
  }

  @Test func replacingAnIdentifiableIfLetChildCancelsTheOldOnesEffects() async {
    let store = makeStore(Downloads.State(detail: .init(id: 1)))
    let first = await store.send(.detail(.listen))
    await store.send(.present(id: 1))
    #expect(!first.isCancelled)
    await store.send(.present(id: 2))
    #expect(first.isCancelled)
  }

  @Test func leavingAnIfCaseLetCaseCancelsItsEffects() async {
    let store = Store(initialState: Session.State.active(.init(id: 1))) {
      Session()
    } withDependencies: {
      $0.continuousClock = TestClock()
    }
    let active = await store.send(.active(.listen))
    await store.send(.activate(id: 1))
    #expect(!active.isCancelled)
    await store.send(.deactivate)
    #expect(active.isCancelled)
  }
}

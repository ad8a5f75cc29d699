import Clocks
import Spool
import Testing

/// Child effects end with their state, and child cancellation IDs belong to their child, on
/// the live store. Every check reads a `StoreTask` right after the `send` whose reduce
/// cancelled (or did not cancel) it: the store cancels an ID while it carries out the effect
/// of that reduce, so nothing has to run or be waited for.
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

  // MARK: IDs belong to their child

  @Test func twoRowsRestartingTheSameIDKeepEachOthersEffects() async {
    let store = makeStore(Downloads.State(rows: [.init(id: 1), .init(id: 2)]))
    let row1 = await store.send(.rows(.element(id: 1, action: .start)))
    let row2 = await store.send(.rows(.element(id: 2, action: .start)))
    #expect(!row1.isCancelled)
    let again = await store.send(.rows(.element(id: 1, action: .start)))
    #expect(row1.isCancelled)
    #expect(!again.isCancelled && !row2.isCancelled)
  }

  @Test func aRowsCancelReachesOnlyItsOwnEffect() async {
    let store = makeStore(Downloads.State(rows: [.init(id: 1), .init(id: 2)]))
    let row1 = await store.send(.rows(.element(id: 1, action: .start)))
    let row2 = await store.send(.rows(.element(id: 2, action: .start)))
    await store.send(.rows(.element(id: 1, action: .stop)))
    #expect(row1.isCancelled)
    #expect(!row2.isCancelled)
  }

  @Test func aRowsTaskCancelReachesOnlyItsOwnEffect() async {
    let store = makeStore(Downloads.State(rows: [.init(id: 1), .init(id: 2)]))
    let row1 = await store.send(.rows(.element(id: 1, action: .start)))
    let row2 = await store.send(.rows(.element(id: 2, action: .start)))
    // `Task.cancel(id:)` runs in the effect; it has cancelled when the effect has ended.
    await store.send(.rows(.element(id: 2, action: .stopFromEffect))).finish()
    #expect(row2.isCancelled)
    #expect(!row1.isCancelled)
  }

  @Test func parentAndChildIDsAreSeparate() async {
    let store = makeStore(Downloads.State(rows: [.init(id: 1)], detail: .init(id: 1)))
    let parent = await store.send(.startParent)
    let row = await store.send(.rows(.element(id: 1, action: .start)))
    let detail = await store.send(.detail(.start))
    // The children restarted `CancelID.download` in their own scopes, not the parent's.
    #expect(!parent.isCancelled && !row.isCancelled)
    await store.send(.stopParent)
    #expect(parent.isCancelled)
    #expect(!row.isCancelled && !detail.isCancelled)
    // And the row in the list and the presented child with the same ID are two children.
    await store.send(.detail(.stop))
    #expect(detail.isCancelled && !row.isCancelled)
  }
}

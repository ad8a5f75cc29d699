import Spool
import Testing

@Suite struct ScopedStoreTests {
  @Test func scopedStoreSendsThroughTheRootAndReadsItsState() async {
    let root = Store(initialState: Parent.State()) { Parent() }
    let child = root.scope(state: \.counter, action: \.counter)
    await child.send(.increment)
    child.enqueue(.increment)
    await child.finish()
    #expect(await child.state.count == 2)
    #expect(await root.state.counter.count == 2)
  }

  /// The scoped store's read runs on the child's view of the root's state right after the
  /// action, reduced by the root; and it is not kept (`withoutActuallyEscaping` checks it).
  @Test func scopedStoreSendReadsTheChildStateAfterTheAction() async {
    let root = Store(initialState: Parent.State()) { Parent() }
    let child = root.scope(state: \.counter, action: \.counter)
    let first = await child.send(.increment) { $0.count }
    let second = await child.send(.increment) { $0 }
    #expect(first == 1)
    #expect(second.count == 2)
    #expect(await root.state.counter.count == 2)
  }

  @Test func scopedStoreOutlivesItsRootReference() async {
    var root: Store<Parent.State, Parent.Action>? = Store(initialState: Parent.State()) {
      Parent()
    }
    let child = root!.scope(state: \.counter, action: \.counter)
    root = nil
    await child.send(.increment)
    #expect(await child.state.count == 1)
  }

  @Test func statesCoalesceAndEndWithTheStore() async {
    let store = Store(initialState: Counter.State()) { Counter() }
    var iterator = store.states.makeAsyncIterator()
    #expect(await iterator.next() == Counter.State(count: 0))
    for _ in 0..<10 { await store.send(.increment) }
    // The observer was slower than the store: it sees the latest state only.
    #expect(await iterator.next() == Counter.State(count: 10))
    await store.shutdown()
    #expect(await iterator.next() == nil)
  }

  @Test func scopedStatesMapTheRootStates() async {
    let root = Store(initialState: Parent.State()) { Parent() }
    let child = root.scope(state: \.counter, action: \.counter)
    var iterator = child.states.map(\.count).makeAsyncIterator()
    #expect(await iterator.next() == 0)
    await child.send(.increment)
    #expect(await iterator.next() == 1)
  }
}

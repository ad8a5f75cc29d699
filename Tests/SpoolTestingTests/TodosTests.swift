import Clocks
import Spool
import SpoolTesting
import Testing

@Suite struct TodosTests {
  @Test func toggleSavesAfterASecond() async {
    let clock = TestClock()
    let store = TestStore(initialState: Todos.State()) {
      Todos()
    } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.addTapped(title: "Milk")) {
      $0.todos = [Todo.State(id: 1, title: "Milk")]
    }
    await store.send(.todos(.element(id: 1, action: .toggleTapped))) {
      $0.todos[id: 1]?.isComplete = true
      $0.todos[id: 1]?.isSaving = true
    }
    await clock.advance(by: .seconds(1))
    await store.receive(.todos(.element(id: 1, action: .saved))) {
      $0.todos[id: 1]?.isSaving = false
    }
  }

  @Test func deleteCancelsTheRowsEffect() async {
    let clock = TestClock()
    let store = TestStore(
      initialState: Todos.State(todos: [
        Todo.State(id: 1, title: "Milk"), Todo.State(id: 2, title: "Eggs"),
      ])
    ) {
      Todos()
    } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.todos(.element(id: 1, action: .toggleTapped))) {
      $0.todos[id: 1]?.isComplete = true
      $0.todos[id: 1]?.isSaving = true
    }
    await store.send(.todos(.element(id: 2, action: .toggleTapped))) {
      $0.todos[id: 2]?.isComplete = true
      $0.todos[id: 2]?.isSaving = true
    }
    await store.send(.delete(id: 1)) {
      $0.todos.remove(id: 1)
    }
    // Only row 2's save is still in flight: it alone answers when the clock moves.
    await clock.advance(by: .seconds(1))
    await store.receive(.todos(.element(id: 2, action: .saved))) {
      $0.todos[id: 2]?.isSaving = false
    }
    await store.finish()
  }
}

import Spool
import SpoolTesting
import Testing

/// Features written with `@Reducer`, run by an exhaustive `TestStore`: the struct reducers,
/// the enum reducer `Inventory.Destination` through `ifLet` without a closure, and an enum state
/// through `Scope`.
@Suite struct ReducerMacroTests {
  @Test func addThroughTheDestination() async {
    let store = TestStore(initialState: Inventory.State()) { Inventory() }
    await store.send(.addButtonTapped) {
      $0.destination = .add(AddName.State())
    }
    await store.send(\.destination.add.nameChanged, "Milk") {
      $0.destination = .add(AddName.State(name: "Milk"))
    }
    await store.send(\.destination.add.saveButtonTapped)
    await store.receive(\.destination.add.delegate.save, "Milk") {
      $0.names = ["Milk"]
      $0.destination = nil
    }
  }

  @Test func editThroughTheDestination() async {
    let store = TestStore(initialState: Inventory.State(names: ["Milk", "Eggs"])) {
      Inventory()
    }
    await store.send(.editButtonTapped(index: 1)) {
      $0.destination = .edit(EditName.State(index: 1, name: "Eggs"))
    }
    await store.send(\.destination.edit.nameChanged, "Bread") {
      $0.destination = .edit(EditName.State(index: 1, name: "Bread"))
    }
    await store.send(\.destination.edit.saveButtonTapped)
    await store.receive(\.destination.edit.delegate.rename) {
      $0.names = ["Milk", "Bread"]
      $0.destination = nil
    }
  }

  /// The generated `State` and `Action` are case pathable and have dynamic members.
  @Test func theGeneratedEnumsAreCasePathable() {
    let state = Inventory.Destination.State.add(AddName.State(name: "Milk"))
    #expect(state.add == AddName.State(name: "Milk"))
    #expect(state.edit == nil)
    #expect(state[case: \.add]?.name == "Milk")
    let action = Inventory.Destination.Action.edit(.saveButtonTapped)
    #expect(action.add == nil)
    #expect(action[case: \.edit.saveButtonTapped] != nil)
  }

  /// The enum reducer's body runs only the reducer of the case the state is in; its instance
  /// `body` is the static one.
  @Test func theEnumReducerScopesEachCase() {
    var state = Inventory.Destination.State.edit(EditName.State(index: 0, name: "Milk"))
    let reducer = Inventory.Destination.body
    _ = reducer.reduce(into: &state, action: .edit(.nameChanged("Eggs")))
    #expect(state == .edit(EditName.State(index: 0, name: "Eggs")))
    let instance = Inventory.Destination.edit(EditName())
    _ = instance.reduce(into: &state, action: .edit(.nameChanged("Bread")))
    #expect(state == .edit(EditName.State(index: 0, name: "Bread")))
  }

  /// The generated `State` names its enum reducer, which is how `ifLet` and `forEach` find the
  /// child reducer without a closure.
  @Test func theGeneratedStateNamesItsReducer() {
    #expect(Inventory.Destination.State.StateReducer.self == Inventory.Destination.self)
    #expect(Mailroom.Path.State.StateReducer.self == Mailroom.Path.self)
    #expect((Inventory.Destination.self as Any.Type) is any CaseReducer.Type)
  }

  /// A child action for a case the destination is not in is reported, as `ifLet` and `Scope`
  /// report it, and the state is left alone.
  @Test func anActionForAnotherCaseIsReported() async {
    let store = TestStore(initialState: Inventory.State()) { Inventory() }
    await store.send(.addButtonTapped) {
      $0.destination = .add(AddName.State())
    }
    await withKnownIssue {
      await store.send(\.destination.edit.nameChanged, "Eggs")
    } matching: { issue in
      let text = text(of: issue)
      return text.contains("received a child action when child state was set to a different case")
        && text.contains("EditName")
    }
  }

  @Test func anEnumStateThroughScope() async {
    let store = TestStore(initialState: LoginFlow.State.loggedOut(AddName.State())) { LoginFlow() }
    await store.send(\.loggedOut.nameChanged, "Blob") {
      $0 = .loggedOut(AddName.State(name: "Blob"))
    }
    await store.send(\.loggedOut.saveButtonTapped)
    await store.receive(\.loggedOut.delegate.save, "Blob") {
      $0 = .loggedIn(name: "Blob")
    }
    await store.send(.logOutButtonTapped) {
      $0 = .loggedOut(AddName.State())
    }
  }
}

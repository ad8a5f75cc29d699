import CasePaths
import Spool
import SpoolTesting
import Testing

/// A Todos-style filter screen, as TCA's Todos example writes it: a `binding` case, a
/// `BindingReducer`, and a reducer after it that reacts to the field written.
@Reducer
struct TodoFilter {
  enum Filter: Equatable, Sendable { case all, active, completed }

  struct State: Equatable, Sendable {
    var filter = Filter.all
    var query = ""
    var todos: [(title: String, isDone: Bool)] = [("Milk", false), ("Eggs", true)]
    var visible = ["Milk", "Eggs"]
    var searches = 0

    static func == (lhs: Self, rhs: Self) -> Bool {
      lhs.filter == rhs.filter && lhs.query == rhs.query && lhs.visible == rhs.visible
        && lhs.searches == rhs.searches && lhs.todos.map(\.title) == rhs.todos.map(\.title)
    }
  }

  enum Action: Equatable, BindableAction {
    case binding(BindingAction<State>)
    case searched
  }

  var body: some ReducerOf<Self> {
    BindingReducer()
    Reduce { state, action in
      switch action {
      case .binding(\.filter):
        state.visible = state.todos.filter { todo in
          switch state.filter {
          case .all: true
          case .active: !todo.isDone
          case .completed: todo.isDone
          }
        }
        .map(\.title)
        return .none
      case .binding(\.query):
        return .send(.searched)
      case .binding:
        return .none
      case .searched:
        state.searches += 1
        return .none
      }
    }
  }
}

/// An action whose case paths are not `@CasePathable`: it implements `binding` itself, as a
/// feature built on SpoolCore alone does.
enum CounterBindingAction: BindableAction, Equatable, Sendable {
  struct State: Equatable, Sendable { var count = 0 }

  case binding(BindingAction<State>)
  case reset

  var binding: BindingAction<State>? {
    if case let .binding(action) = self { action } else { nil }
  }
}

@Suite struct BindingReducerTests {
  @Test func aBindingActionWritesItsValue() async {
    let store = TestStore(initialState: TodoFilter.State()) { TodoFilter() }
    await store.send(.binding(.set(\.filter, .completed))) {
      $0.filter = .completed
      $0.visible = ["Eggs"]
    }
  }

  @Test func setIsShortForBindingSet() async {
    let store = TestStore(initialState: TodoFilter.State()) { TodoFilter() }
    await store.send(.set(\.filter, .active)) {
      $0.filter = .active
      $0.visible = ["Milk"]
    }
  }

  /// The reducer after `BindingReducer` sees the state after the write, matches the action by
  /// the field it writes, and may return an effect.
  @Test func aLaterReducerReactsToTheFieldWritten() async {
    let store = TestStore(initialState: TodoFilter.State()) { TodoFilter() }
    await store.send(.set(\.query, "milk")) { $0.query = "milk" }
    await store.receive(.searched) { $0.searches = 1 }
  }

  @Test func aWrongAssertionOnABindingFails() async {
    let store = TestStore(initialState: TodoFilter.State()) { TodoFilter() }
    await withKnownIssue {
      await store.send(.set(\.filter, .active)) {
        $0.filter = .completed
        $0.visible = ["Milk"]
      }
    } matching: {
      message(of: $0).hasPrefix("A state change does not match expectation: …")
    }
  }

  @Test func bindingActionsAreEqualWhenTheyWriteTheSameValueToTheSameField() {
    typealias Binding = BindingAction<TodoFilter.State>
    #expect(Binding.set(\.query, "a") == .set(\.query, "a"))
    #expect(Binding.set(\.query, "a") != .set(\.query, "b"))
    #expect(Binding.set(\.filter, .all) != .set(\.query, ""))
    #expect(TodoFilter.Action.set(\.query, "a") == .binding(.set(\.query, "a")))
  }

  @Test func bindingIsTheCarriedActionOrNil() {
    #expect(TodoFilter.Action.set(\.query, "a").binding == .set(\.query, "a"))
    #expect(TodoFilter.Action.searched.binding == nil)
    #expect(CounterBindingAction.set(\.count, 2).binding == .set(\.count, 2))
    #expect(CounterBindingAction.reset.binding == nil)
  }

  /// The reducer alone, on an action written without `@CasePathable`.
  @Test func bindingReducerAppliesHandWrittenBindings() async {
    let store = TestStore(initialState: CounterBindingAction.State()) {
      BindingReducer<CounterBindingAction.State, CounterBindingAction>()
    }
    await store.send(.set(\.count, 3)) { $0.count = 3 }
    await store.send(.reset)
  }
}

/// A binding action's case paths: `\.binding.field` names the value written into `field`, in
/// `send` and `receive`, as TCA's `BindingAction` offers.
@Suite struct BindingActionCasePathTests {
  @Reducer
  struct Toggle {
    struct State: Equatable, Sendable {
      var isOn = false
      var label = ""
    }
    enum Action: BindableAction, Equatable, Sendable {
      case binding(BindingAction<State>)
      case turnOn
    }
    var body: some ReducerOf<Self> {
      BindingReducer()
      Reduce { _, action in
        switch action {
        case .binding:
          .none
        case .turnOn:
          .send(.set(\.isOn, true))
        }
      }
    }
  }

  @Test func sendAndReceiveThroughAFieldsCasePath() async {
    let store = TestStore(initialState: .init()) { Toggle() }
    await store.send(\.binding.label, "Lamp") {
      $0.label = "Lamp"
    }
    await store.send(.turnOn)
    await store.receive(\.binding.isOn, true) {
      $0.isOn = true
    }
  }

  @Test func aFieldsCasePathExtractsOnlyWritesToThatField() {
    let paths = BindingAction<Toggle.State>.allCasePaths
    let label = BindingAction<Toggle.State>.set(\.label, "Lamp")
    #expect(paths.label.extract(from: label) == "Lamp")
    #expect(paths.isOn.extract(from: label) == nil)
    #expect(paths.isOn.embed(true) == .set(\.isOn, true))
  }

  /// A receive by a field's case path fails on a write to another field, naming the write.
  @Test func receivingAnotherFieldFails() async {
    let store = TestStore(initialState: .init()) { Toggle() }
    await store.send(.turnOn)
    await withKnownIssue {
      await store.receive(\.binding.label)
    } matching: { issue in
      message(of: issue).hasPrefix("Received unexpected action: …")
        && message(of: issue).contains("\\State.isOn")
    }
  }
}

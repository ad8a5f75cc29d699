import CasePaths
import ConcurrencyExtras
import Dependencies
import IdentifiedCollections
import Spool
import Testing

struct Counter: Reducer {
  struct State: Equatable, Sendable { var count = 0 }
  @CasePathable
  enum Action: Equatable, Sendable { case increment, decrement }

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .increment: state.count += 1
      case .decrement: state.count -= 1
      }
      return .none
    }
  }
}

struct Todo: Reducer {
  struct State: Equatable, Identifiable, Sendable {
    let id: Int
    var isDone = false
  }
  @CasePathable
  enum Action: Equatable, Sendable { case toggle }

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    state.isDone.toggle()
    return .none
  }
}

struct Parent: Reducer {
  struct State: Equatable, Sendable {
    var counter = Counter.State()
    var optionalCounter: Counter.State?
    var todos: IdentifiedArrayOf<Todo.State> = []
    var changes = 0
    var mode = Mode.idle
  }
  @CasePathable
  enum Mode: Equatable, Sendable {
    case idle
    case counting(Counter.State)
  }
  @CasePathable
  enum Action: Equatable, Sendable {
    case counter(Counter.Action)
    case optionalCounter(Counter.Action)
    case todos(IdentifiedActionOf<Todo>)
    case mode(Counter.Action)
    case showOptional
    case hideOptional
    case startCounting
    case stopCounting
  }

  var body: some ReducerOf<Self> {
    Scope(state: \.counter, action: \.counter) {
      Counter()
    }
    Scope(state: \.mode, action: \.mode) {
      Scope(state: \.counting, action: \.self) {
        Counter()
      }
    }
    Reduce { state, action in
      switch action {
      case .showOptional: state.optionalCounter = Counter.State()
      case .hideOptional: state.optionalCounter = nil
      case .startCounting: state.mode = .counting(Counter.State())
      case .stopCounting: state.mode = .idle
      case .counter, .optionalCounter, .todos, .mode: break
      }
      return .none
    }
    .ifLet(\.optionalCounter, action: \.optionalCounter) {
      Counter()
    }
    .forEach(\.todos, action: \.todos) {
      Todo()
    }
  }
}

/// Counts the changes of the parent's counter, including those its `Scope` makes.
struct ChangeCounting: Reducer {
  var body: some ReducerOf<Parent> {
    CombineReducers {
      Parent()
    }
    .onChange(of: \.counter.count) { _, _ in
      Reduce { state, _ in
        state.changes += 1
        return .none
      }
    }
  }
}

/// Counts changes of a tuple (not `Equatable`) and, apart, of the count by two or more.
struct TupleChangeCounting: Reducer {
  var body: some ReducerOf<Parent> {
    Parent()
      .onChange(
        of: { ($0.counter.count, $0.optionalCounter != nil) }, removeDuplicates: ==
      ) { old, new in
        Reduce { state, _ in
          // The values the operator compared: they must differ.
          if old != new { state.changes += 1 }
          return .none
        }
      }
      .onChange(
        of: { $0.counter.count }, removeDuplicates: { abs($0 - $1) < 2 }
      ) { _, _ in
        Reduce { state, _ in
          state.changes += 100
          return .none
        }
      }
  }
}

@Suite struct ReducerOperatorTests {
  func makeStore(_ state: Parent.State = Parent.State()) -> Store<Parent.State, Parent.Action> {
    Store(initialState: state) { Parent() }
  }

  @Test func scopeRunsTheChildOnItsState() async {
    let store = makeStore()
    await store.send(.counter(.increment))
    await store.send(.counter(.increment))
    #expect(await store.state.counter.count == 2)
  }

  @Test func onChangeRunsWhenTheValueChanges() async {
    let store = Store(initialState: Parent.State()) { ChangeCounting() }
    await store.send(.counter(.increment))
    await store.send(.showOptional)
    await store.send(.counter(.decrement))
    #expect(await store.state.changes == 2)
  }

  @Test func onChangeWithRemoveDuplicatesRunsWhenTheyDiffer() async {
    let store = Store(initialState: Parent.State()) { TupleChangeCounting() }
    await store.send(.counter(.increment))  // (1, false): a change
    await store.send(.hideOptional)  // (1, false): none
    await store.send(.showOptional)  // (1, true): a change
    await store.send(.counter(.decrement))  // (0, true): a change; the count moved by 1 only
    #expect(await store.state.changes == 3)
  }

  /// `any ReducerOf<Feature>` in a builder runs like the reducer it holds.
  @Test func anExistentialReducerRunsInTheBuilder() async {
    let store = Store(initialState: Counter.State()) {
      Counter()
      Counter() as any ReducerOf<Counter>
    }
    await store.send(.increment)
    #expect(await store.state.count == 2)
  }

  @Test func ifLetRunsWhileTheChildStateIsPresent() async {
    let store = makeStore()
    await store.send(.showOptional)
    await store.send(.optionalCounter(.increment))
    #expect(await store.state.optionalCounter?.count == 1)
  }

  @Test func ifLetReportsAChildActionOnNilStateAndKeepsRunning() async {
    let store = makeStore()
    await withKnownIssue {
      await store.send(.optionalCounter(.increment))
    } matching: { issue in
      message(of: issue).hasPrefix("An \"ifLet\" at \"SpoolTests/")
        && message(of: issue).contains(
          "\" received a child action when child state was \"nil\". …")
        && issue.description.contains(".optionalCounter(.increment)")
        && issue.description.contains("Counter")
    }
    await store.send(.counter(.increment))
    #expect(await store.state.counter.count == 1)
  }

  @Test func scopeOnACaseReportsAMismatchAndKeepsRunning() async {
    let store = makeStore()
    await store.send(.startCounting)
    await store.send(.mode(.increment))
    #expect(await store.state.mode == .counting(Counter.State(count: 1)))
    await store.send(.stopCounting)
    await withKnownIssue {
      await store.send(.mode(.increment))
    } matching: { issue in
      message(of: issue).hasPrefix("A \"Scope\" at \"SpoolTests/")
        && message(of: issue).contains(
          "\" received a child action when child state was set to a different case. …")
        && issue.description.contains("Action: Counter.Action.increment")
        && issue.description.contains("State: Parent.Mode.idle")
    }
    await store.send(.counter(.increment))
    #expect(await store.state.counter.count == 1)
  }

  @Test func forEachRunsTheElementReducerByID() async {
    var state = Parent.State()
    state.todos = IdentifiedArray(uniqueElements: (0..<1_000).map { Todo.State(id: $0) })
    let store = makeStore(state)
    await store.send(.todos(.element(id: 500, action: .toggle)))
    let todos = await store.state.todos
    #expect(todos[id: 500]?.isDone == true)
    #expect(todos.filter(\.isDone).count == 1)
  }

  @Test func forEachReportsAnUnknownID() async {
    let store = makeStore()
    await withKnownIssue {
      await store.send(.todos(.element(id: 7, action: .toggle)))
    } matching: { issue in
      message(of: issue).hasPrefix("A \"forEach\" at \"SpoolTests/")
        && message(of: issue).contains("\" received an action for a missing element. …")
        && issue.description.contains("id: 7")
    }
  }

  @Test func ifCaseLetRunsWhileInTheCase() async {
    let store = Store(initialState: Parent.Mode.idle) {
      Reduce<Parent.Mode, Parent.Action> { state, action in
        if case .startCounting = action { state = .counting(Counter.State()) }
        return .none
      }
      .ifCaseLet(\.counting, action: \.mode) {
        Counter()
      }
    }
    await withKnownIssue {
      await store.send(.mode(.increment))
    } matching: { issue in
      message(of: issue).hasPrefix("An \"ifCaseLet\" at \"SpoolTests/ReducerOperatorTests.swift:")
        && message(of: issue).contains(
          "\" received a child action when child state was set to a different case. …")
    }
    await store.send(.startCounting)
    await store.send(.mode(.increment))
    #expect(await store.state == .counting(Counter.State(count: 1)))
  }

  @Test func dependencyOverridesForTheReducer() async {
    struct Stamp: Reducer {
      struct State: Equatable, Sendable { var stamp = "" }
      enum Action: Sendable { case stamp }
      func reduce(into state: inout State, action: Action) -> Effect<Action> {
        @Dependency(\.date.now) var now
        state.stamp = "\(now.timeIntervalSince1970)"
        return .none
      }
    }
    let store = Store(initialState: Stamp.State()) {
      Stamp().dependency(\.date, .constant(Date(timeIntervalSince1970: 42)))
    }
    await store.send(.stamp)
    #expect(await store.state.stamp == "42.0")
  }

  @Test func chainedDependencyOverridesFuseAndTheInnermostWins() async {
    struct Stamp: Reducer {
      struct State: Equatable, Sendable { var stamp = "" }
      enum Action: Sendable { case stamp }
      func reduce(into state: inout State, action: Action) -> Effect<Action> {
        @Dependency(\.date.now) var now
        @Dependency(\.uuid) var uuid
        state.stamp = "\(now.timeIntervalSince1970) \(uuid())"
        return .none
      }
    }
    // One reducer, not three nested ones: the type says so.
    let fused: _DependencyKeyWritingReducer<Stamp> = Stamp()
      .dependency(\.date, .constant(Date(timeIntervalSince1970: 42)))
      .dependency(\.date, .constant(Date(timeIntervalSince1970: 7)))
      .transformDependency(\.self) {
        $0.date = .constant(Date(timeIntervalSince1970: 1))
        $0.uuid = .constant(UUID(0))
      }
    let store = Store(initialState: Stamp.State()) { fused }
    await store.send(.stamp)
    #expect(await store.state.stamp == "42.0 \(UUID(0))")
  }

  @Test func combineReducersRunsInOrder() async {
    let store = Store(initialState: Counter.State()) {
      CombineReducers {
        Counter()
        Reduce { state, _ in
          state.count *= 10
          return .none
        }
        EmptyReducer()
      }
    }
    await store.send(.increment)
    #expect(await store.state.count == 10)
  }

  @Test func builderHandlesConditionalsAndLoops() async {
    struct Configurable: Reducer {
      let double: Bool
      let extra: Int
      var body: some Reducer<Counter.State, Counter.Action> {
        Counter()
        if double {
          Counter()
        } else {
          EmptyReducer()
        }
        for _ in 0..<extra {
          Counter()
        }
      }
    }
    let store = Store(initialState: Counter.State()) { Configurable(double: true, extra: 2) }
    await store.send(.increment)
    #expect(await store.state.count == 4)
  }
}

import Foundation

import CasePaths
import ConcurrencyExtras
import Spool
import Testing

/// `_printChanges` and its printers, `_ReducerPrinter`.
@Suite struct ReducerPrinterTests {
  struct Nested: Reducer {
    struct State: Equatable, Sendable { var secret = "hunter2" }
    enum Action: Equatable, Sendable {
      case counter(Counter.Action)
      case response(Int)
      case reset
    }

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      state.secret += "!"
      return .none
    }
  }

  @Test func customDumpPrintsTheActionAndTheDiff() async {
    let printed = LockIsolated<[String]>([])
    let store = Store(initialState: Counter.State()) {
      Counter()._printChanges(.customDump(to: { line in printed.withValue { $0.append(line) } }))
    }
    await store.send(.increment)
    #expect(
      printed.value == [
        """
        received action:
          Counter.Action.increment
        - Counter.State(count: 0)
        + Counter.State(count: 1)
        """
      ])
  }

  @Test func customDumpSaysWhenTheStateDidNotChange() async {
    let printed = LockIsolated<[String]>([])
    let store = Store(initialState: Counter.State()) {
      Reduce<Counter.State, Counter.Action> { _, _ in .none }
        ._printChanges(.customDump(to: { line in printed.withValue { $0.append(line) } }))
    }
    await store.send(.increment)
    #expect(printed.value == ["received action:\n  Counter.Action.increment\n  (No state changes)"])
  }

  @Test func actionLabelsPrintsTheCaseAndNoState() async {
    let printed = LockIsolated<[String]>([])
    let store = Store(initialState: Nested.State()) {
      Nested()._printChanges(.actionLabels(to: { line in printed.withValue { $0.append(line) } }))
    }
    await store.send(.reset)
    await store.send(.counter(.increment))
    await store.send(.response(42))
    #expect(
      printed.value == [
        "received action: .reset",
        "received action: .counter(.increment)",
        "received action: .response",
      ])
    #expect(!printed.value.joined().contains("hunter2"))
    #expect(await store.state.secret == "hunter2!!!")
  }

  @Test func aNilPrinterPrintsNothingAndStillReduces() async {
    let store = Store(initialState: Counter.State()) {
      Counter()._printChanges(nil)
    }
    await store.send(.increment)
    #expect(await store.state.count == 1)
  }

  @Test func aCustomPrinterGetsTheActionAndBothStates() async {
    let changes = LockIsolated<[String]>([])
    let printer = _ReducerPrinter<Counter.State, Counter.Action> { action, old, new in
      changes.withValue { $0.append("\(action) \(old.count)->\(new.count)") }
    }
    let store = Store(initialState: Counter.State()) { Counter()._printChanges(printer) }
    await store.send(.increment)
    await store.send(.decrement)
    #expect(changes.value == ["increment 0->1", "decrement 1->0"])
  }
}

import CasePaths
import Spool
import SpoolTesting
import Testing

/// `TestStore.send` and `receive` with case key paths, including through `forEach`'s
/// `IdentifiedAction` with `[id:]`.
@Suite struct TestStoreCaseKeyPathTests {
  @Test func sendAndReceiveThroughAnElementsID() async {
    let store = TestStore(initialState: TodoList.State()) { TodoList() }
    await store.send(\.add, "milk") {
      $0.rows = [TodoRow.State(id: 1, title: "milk")]
    }
    await store.send(\.rows[id: 1].toggle) {
      $0.rows[id: 1]?.isDone = true
      $0.rows[id: 1]?.isSaving = true
    }
    await store.receive(\.rows[id: 1].saved) {
      $0.rows[id: 1]?.isSaving = false
    }
  }

  @Test func sendAPayloadThroughAnElementsID() async {
    let store = TestStore(
      initialState: TodoList.State(rows: [TodoRow.State(id: 1), TodoRow.State(id: 2)])
    ) {
      TodoList()
    }
    await store.send(\.rows[id: 2].rename, "eggs") {
      $0.rows[id: 2]?.title = "eggs"
    }
    await store.send(\.clear) {
      $0.rows = []
    }
  }

  @Test func receivingTheWrongElementFails() async {
    let store = TestStore(initialState: TodoList.State(rows: [TodoRow.State(id: 1)])) {
      TodoList()
    }
    await store.send(\.rows[id: 1].toggle) {
      $0.rows[id: 1]?.isDone = true
      $0.rows[id: 1]?.isSaving = true
    }
    let line: UInt = #line + 2
    await withKnownIssue {
      await store.receive(\.rows[id: 2].saved) {
        $0.rows[id: 1]?.isSaving = false
      }
    } matching: { issue in
      let text = text(of: issue)
      return text.contains("Received unexpected action")
        && text.contains("id: 1") && text.contains(".saved")
        && issue.sourceLocation?.line == Int(line)
    }
  }

  @Test func sendByCaseFailsLikeSendAtTheCallersLine() async {
    let store = TestStore(initialState: TodoList.State()) { TodoList() }
    let line: UInt = #line + 2
    await withKnownIssue {
      await store.send(\.add, "milk") {
        $0.rows = [TodoRow.State(id: 1, title: "eggs")]
      }
    } matching: { issue in
      text(of: issue).contains("A state change does not match expectation")
        && issue.sourceLocation?.line == Int(line)
        && issue.sourceLocation?.fileID == "SpoolTestingTests/TestStoreCaseKeyPathTests.swift"
    }
  }

  @Test func anElementsCaseExtractsOnlyItsID() {
    let action = TodoList.Action.rows(.element(id: 1, action: .toggle))
    #expect(action[case: \.rows[id: 1].toggle] != nil)
    #expect(action[case: \.rows[id: 2].toggle] == nil)
    #expect(action[case: \.rows[id: 1].saved] == nil)
    #expect(action[case: \.rows[id: 1]] == .toggle)
    let rename: CaseKeyPath<TodoList.Action, String> = \.rows[id: 3].rename
    #expect(rename("eggs") == .rows(.element(id: 3, action: .rename("eggs"))))
  }
}

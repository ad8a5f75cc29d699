import Spool
import SpoolTesting
import Testing

/// `TestStore.assert(_:)` and `TestStoreOf`.
@Suite struct TestStoreAssertTests {
  @Test func assertPassesWhenTheStateMatches() async {
    let store: TestStoreOf<Harness> = TestStore(initialState: Harness.State()) { Harness() }
    await store.send(.increment) { $0.count = 1 }
    store.assert { $0.count = 1 }
    // Setting fields to the values they have is not an unnecessary change here.
    store.assert {
      $0.count = 1
      $0.name = ""
    }
  }

  @Test func assertFailsWithTheDiffOfASendClosure() async {
    let store = TestStore(initialState: Harness.State()) { Harness() }
    await store.send(.increment) { $0.count = 1 }
    let line: UInt = #line + 2
    withKnownIssue {
      store.assert { $0.count = 2 }
    } matching: { issue in
      let text = text(of: issue)
      return text.contains("A state change does not match expectation")
        && text.contains("count: 2") && text.contains("count: 1")
        && issue.sourceLocation?.line == Int(line)
    }
  }

  @Test func assertSendsNothingAndRunsNoEffect() async {
    let store = TestStore(initialState: Harness.State()) {
      Harness { .send(.increment) }
    }
    store.assert { $0.count = 0 }
    #expect(store.state.count == 0)
    await store.send(.start)
    await store.receive(.increment) { $0.count = 1 }
    store.assert { $0.count = 1 }
  }

  @Test func assertWorksTheSameWhenNotExhaustive() async {
    let store = TestStore(initialState: Harness.State()) { Harness() }
    store.exhaustivity = .off
    await store.send(.rename("Blob"))
    store.assert { $0.name = "Blob" }
    withKnownIssue {
      store.assert { $0.name = "Blobby" }
    } matching: { text(of: $0).contains("A state change does not match expectation") }
  }

  @Test func anErrorThrownByTheClosureFails() async {
    struct Failure: Error {}
    let store = TestStore(initialState: Harness.State()) { Harness() }
    withKnownIssue {
      store.assert { _ in throw Failure() }
    } matching: { text(of: $0).contains("Threw error") }
  }
}

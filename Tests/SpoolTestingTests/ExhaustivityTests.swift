import Clocks
import Spool
import SpoolTesting
import Testing

@Suite struct ExhaustivityTests {
  @Test func offChecksOnlyWhatTheTestAsserts() async {
    let store = TestStore(initialState: Harness.State()) {
      Harness {
        .merge(.send(.increment), .send(.rename("Blob")), .send(.logged("a")))
      }
    }
    store.exhaustivity = .off
    await store.send(.start)
    // Skips `increment`, receives `rename`, checks only the name.
    await store.receive(\.rename) { $0.name = "Blob" }
    await store.send(.increment) { $0.count = 2 }
    // `logged("a")` was never received, and that is fine.
  }

  @Test func offStillFailsWhenAnAssertedFieldIsWrong() async {
    let store = TestStore(initialState: Harness.State()) { Harness() }
    store.exhaustivity = .off
    await withKnownIssue {
      await store.send(.increment) { $0.count = 3 }
    } matching: { text(of: $0).contains("A state change does not match expectation") }
  }

  @Test func offLeavesRunningEffectsAlone() async {
    let store = TestStore(initialState: Harness.State()) {
      Harness { .run { _ in await suspendUntilCancelled() } }
    }
    store.exhaustivity = .off
    await store.send(.start)
  }

  @Test func offFailsWhenNoMatchingActionArrives() async {
    let store = TestStore(initialState: Harness.State()) {
      Harness { .send(.increment) }
    }
    store.exhaustivity = .off
    await store.send(.start)
    await withKnownIssue {
      await store.receive(\.rename)
    } matching: { text(of: $0).contains("Expected to receive an action, but received none") }
  }

  /// Passes with known issues: what was skipped is reported as expected failures.
  @Test func showSkippedAssertionsReportsThemAsKnownIssues() async {
    let store = TestStore(initialState: Harness.State()) {
      Harness { .merge(.send(.increment), .send(.rename("Blob"))) }
    }
    store.exhaustivity = .off(showSkippedAssertions: true)
    await store.send(.start)
    await store.receive(\.rename) { $0.name = "Blob" }
  }
}

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
    } matching: {
      text(of: $0).contains("Expected to receive an action matching case path, but didn't get one")
    }
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

  @Test func withExhaustivityAppliesToItsStepsThenRestores() async {
    let store = TestStore(initialState: Harness.State()) {
      Harness { .merge(.send(.increment), .send(.rename("Blob"))) }
    }
    await store.withExhaustivity(.off) {
      #expect(store.exhaustivity == .off)
      await store.send(.start)
      // Not exhaustive: `increment` is skipped, only the name is checked.
      await store.receive(\.rename) { $0.name = "Blob" }
    }
    #expect(store.exhaustivity == .on)
    // Exhaustive again: an undescribed change fails.
    await withKnownIssue {
      await store.send(.increment)
    } matching: { text(of: $0).contains("State was not expected to change") }
  }

  @Test func withExhaustivityRestoresAfterAThrowAndReturnsTheResult() async throws {
    struct Failure: Error {}
    let store = TestStore(initialState: Harness.State()) { Harness() }
    store.exhaustivity = .off(showSkippedAssertions: true)
    await #expect(throws: Failure.self) {
      try await store.withExhaustivity(.on) {
        await store.send(.increment) { $0.count = 1 }
        throw Failure()
      }
    }
    #expect(store.exhaustivity == .off(showSkippedAssertions: true))
    let count = await store.withExhaustivity(.off) {
      await store.send(.increment)
      return store.state.count
    }
    #expect(count == 2)
  }

  @Test func synchronousWithExhaustivity() async {
    let store = TestStore(initialState: Harness.State()) { Harness() }
    await store.send(.rename("Blob")) { $0.name = "Blob" }
    let seen = store.withExhaustivity(.off) {
      store.assert { $0.name = "Blob" }
      return store.exhaustivity
    }
    #expect(seen == .off)
    #expect(store.exhaustivity == .on)
  }
}

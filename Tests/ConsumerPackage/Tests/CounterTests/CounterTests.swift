import Counter
import SpoolTesting
import Testing

@Suite struct CounterTests {
  @Test func incrementing() async {
    let store = TestStore(initialState: Counter.State()) { Counter() }
    await store.send(.incrementButtonTapped) { $0.count = 1 }
    await store.send(.incrementByEffectButtonTapped)
    await store.receive(.incrementButtonTapped) { $0.count = 2 }
  }

  /// Passes only if the test store's failure reaches Swift Testing: a failure that is merely
  /// printed leaves `withKnownIssue` without its issue, and that fails the test.
  @Test func aWrongExpectationFailsTheTest() async {
    let store = TestStore(initialState: Counter.State()) { Counter() }
    await withKnownIssue {
      await store.send(.incrementButtonTapped) { $0.count = 2 }
    } matching: { issue in
      String(describing: issue).contains("A state change does not match expectation")
    }
  }

  /// The same for an action the test did not receive, reported at the end of the test.
  @Test func anUnreceivedActionFailsTheTest() async {
    await withKnownIssue {
      let store = TestStore(initialState: Counter.State()) { Counter() }
      await store.send(.incrementByEffectButtonTapped)
      await store.finish()
    } matching: { issue in
      String(describing: issue).contains("unexpected action by the end of this test")
    }
  }
}

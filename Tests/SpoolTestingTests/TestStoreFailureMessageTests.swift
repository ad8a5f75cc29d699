import Clocks
import Spool
import SpoolTesting
import Testing

/// Each failure of the test store opens with TCA's words for the same situation, so that the
/// matchers of TCA users' `withKnownIssue` and `XCTExpectFailure` keep matching.
@Suite struct TestStoreFailureMessageTests {
  @Test func aStateMismatchOpensAsTCAsAndIndentsTheDiffAsTCAs() async {
    let store = TestStore(initialState: Harness.State()) { Harness() }
    await withKnownIssue {
      await store.send(.increment) { $0.count = 2 }
    } matching: { issue in
      let text = message(of: issue)
      return text.hasPrefix("A state change does not match expectation: …\n\n    ")
        && text.hasSuffix("\n\n(Expected: −, Actual: +)")
    }
  }

  @Test func anUnexpectedStateChangeOpensAsTCAs() async {
    let store = TestStore(initialState: Harness.State()) { Harness() }
    await withKnownIssue {
      await store.send(.increment)
    } matching: {
      message(of: $0).hasPrefix("State was not expected to change, but a change occurred: …")
    }
  }

  @Test func aClosureThatChangesNothingOpensAsTCAs() async {
    let store = TestStore(initialState: Harness.State()) { Harness() }
    await withKnownIssue {
      await store.send(.rename("")) { $0.name = "" }
    } matching: {
      message(of: $0).hasPrefix("Expected state to change, but no change occurred.")
    }
  }

  @Test func anUnexpectedActionOpensAsTCAsWithADiffIndentedAsTCAs() async {
    let store = TestStore(initialState: Harness.State()) {
      Harness { .send(.rename("Blob")) }
    }
    await store.send(.start)
    await withKnownIssue {
      await store.receive(.rename("Blob Jr.")) { $0.name = "Blob" }
    } matching: { issue in
      let text = message(of: issue)
      return text.hasPrefix("Received unexpected action: …\n\n    ")
        && text.hasSuffix("\n\n(Expected: −, Received: +)")
    }
  }

  @Test func anUnexpectedPayloadOfACaseOpensAsTCAs() async {
    let store = TestStore(initialState: Harness.State()) {
      Harness { .send(.rename("Blob")) }
    }
    await store.send(.start)
    await withKnownIssue {
      await store.receive(\.rename, "Blob Jr.") { $0.name = "Blob" }
    } matching: { issue in
      let text = message(of: issue)
      return text.hasPrefix("Received unexpected action: …")
        && text.hasSuffix("(Expected: −, Actual: +)")
    }
  }

  /// TCA's `testReceiveUnexpectedActionFailure`: the unexpected action is the receive's only
  /// failure. The state that action changed is not checked against the closure (here none),
  /// which describes the action the test expected; any other issue fails this test.
  @Test func anUnexpectedActionIsTheOnlyFailureOfItsReceive() async {
    let store = TestStore(initialState: 0) { FirstSecond() }
    await store.send(.first)
    await withKnownIssue {
      await store.receive(.first)
    } matching: {
      message(of: $0) == """
        Received unexpected action: …

            − FirstSecond.Action.first
            + FirstSecond.Action.second

        (Expected: −, Received: +)
        """
    }
  }

  /// TCA's `testSendActionBeforeReceivingFailure`: sending before receiving fails once, and the
  /// unhandled action stays to be received, so the receives after it pass.
  @Test func sendingBeforeReceivingFailsOnceAndKeepsTheActionToReceive() async {
    let store = TestStore(initialState: 0) { FirstSecond() }
    await store.send(.first)
    await withKnownIssue {
      await store.send(.first)
    } matching: {
      message(of: $0).hasPrefix("Must handle 1 received action before sending an action: …")
    }
    await store.receive(.second) { $0 = 1 }
    await store.receive(.second) { $0 = 2 }
  }

  @Test func anActionOfAnotherCaseOpensAsTCAs() async {
    let store = TestStore(initialState: Harness.State()) {
      Harness { .send(.increment) }
    }
    await store.send(.start)
    await withKnownIssue {
      await store.receive(\.rename) { $0.count = 1 }
    } matching: { issue in
      let text = message(of: issue)
      return text.hasPrefix("Received unexpected action: …\n\n  Harness.Action.increment")
    }
  }

  @Test func anActionThatDoesNotMatchThePredicateOpensAsTCAs() async {
    let store = TestStore(initialState: Harness.State()) {
      Harness { .send(.increment) }
    }
    await store.send(.start)
    await withKnownIssue {
      await store.receive({ $0 == .cancel }) { $0.count = 1 }
    } matching: {
      message(of: $0).hasPrefix("Received unexpected action: …\n\n  Harness.Action.increment")
    }
  }

  @Test func anActionThatNeverArrivedOpensAsTCAsForEachOverload() async {
    let store = TestStore(initialState: Harness.State()) { Harness() }
    await withKnownIssue {
      await store.receive(.increment)
    } matching: {
      message(of: $0).hasPrefix("Expected to receive the following action, but didn't: …")
    }
    await withKnownIssue {
      await store.receive(\.rename)
    } matching: {
      message(of: $0).hasPrefix(
        "Expected to receive an action matching case path, but didn't get one.")
    }
    await withKnownIssue {
      await store.receive(\.rename, "Blob")
    } matching: {
      message(of: $0).hasPrefix(
        "Expected to receive an action matching case path, but didn't get one.")
    }
    await withKnownIssue {
      await store.receive({ $0 == .increment })
    } matching: {
      message(of: $0).hasPrefix(
        "Expected to receive an action matching predicate, but didn't get one.")
    }
  }

  @Test func anActionAnEffectInFlightDidNotSendOpensAsTCAs() async {
    let clock = TestClock()
    let store = TestStore(initialState: Harness.State()) {
      Harness {
        .run { send in
          try await clock.sleep(for: .seconds(1))
          await send(.increment)
        }
      }
    }
    await store.send(.start)
    await withKnownIssue {
      await store.receive(.increment, timeout: .zero) { $0.count = 1 }
    } matching: {
      message(of: $0).hasPrefix("Expected to receive an action, but received none")
    }
    store.exhaustivity = .off
    await withKnownIssue {
      await store.receive(.increment, timeout: .zero) { $0.count = 1 }
    } matching: {
      message(of: $0).hasPrefix("Expected to receive a matching action, but received none")
    }
    await store.skipInFlightEffects()
  }

  @Test func anUnreceivedActionAtTheEndOpensAsTCAs() async {
    let store = TestStore(initialState: Harness.State()) {
      Harness { .send(.rename("Blob")) }
    }
    await store.send(.start)
    await withKnownIssue {
      await store.finish()
    } matching: {
      message(of: $0).hasPrefix(
        "The store received 1 unexpected action by the end of this test: …")
    }
  }

  @Test func anEffectInFlightAtTheEndOpensAsTCAs() async {
    await withKnownIssue {
      let store = TestStore(initialState: Harness.State()) {
        Harness { .run { _ in await suspendUntilCancelled() } }
      }
      await store.send(.start)
    } matching: {
      message(of: $0).hasPrefix(
        """
        An effect returned for this action is still running. It must complete before the end \
        of the test. …
        """
      )
    }
  }

  @Test func sendingBeforeReceivingOpensAsTCAs() async {
    let store = TestStore(initialState: Harness.State()) {
      Harness { .send(.increment) }
    }
    await store.send(.start)
    await withKnownIssue {
      await store.send(.rename("Blob")) { $0.name = "Blob" }
    } matching: {
      message(of: $0).hasPrefix("Must handle 1 received action before sending an action: …")
    }
    await store.receive(.increment) { $0.count = 1 }
  }

  @Test func aTaskStillInFlightOpensAsTCAs() async {
    let store = TestStore(initialState: Harness.State()) {
      Harness { .run { _ in await suspendUntilCancelled() } }
    }
    await withKnownIssue {
      await store.send(.start).finish(timeout: .zero)
    } matching: {
      message(of: $0).hasPrefix("Expected task to finish, but it is still in-flight")
    }
    await store.skipInFlightEffects()
  }

  @Test func aMismatchInANonExhaustiveStoreOpensAsTCAs() async {
    let store = TestStore(initialState: Harness.State()) {
      Harness { .merge(.send(.increment), .send(.rename("Blob"))) }
    }
    store.exhaustivity = .off
    await store.send(.start)
    await withKnownIssue {
      await store.receive(\.rename) { $0.name = "Blob Jr." }
    } matching: {
      message(of: $0).hasPrefix("A state change does not match expectation: …")
    }
  }
}

/// `first` sends `second`; `second` counts.
private struct FirstSecond: Reducer {
  enum Action: Equatable, Sendable { case first, second }

  func reduce(into state: inout Int, action: Action) -> Effect<Action> {
    switch action {
    case .first:
      return .send(.second)
    case .second:
      state += 1
      return .none
    }
  }
}

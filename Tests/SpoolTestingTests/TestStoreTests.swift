import Clocks
import ConcurrencyExtras
import Dependencies
import Foundation
import Spool
import SpoolTesting
import Testing

@Suite struct TestStoreTests {
  @Test func aWrongStateExpectationFailsWithADiff() async {
    let store = TestStore(initialState: Harness.State()) { Harness() }
    await withKnownIssue {
      await store.send(.increment) { $0.count = 2 }
    } matching: { issue in
      let text = text(of: issue)
      return text.contains("A state change does not match expectation")
        && text.contains("count: 2") && text.contains("count: 1")
    }
    #expect(store.state.count == 1)
  }

  @Test func anUndescribedChangeFails() async {
    let store = TestStore(initialState: Harness.State()) { Harness() }
    await withKnownIssue {
      await store.send(.increment)
    } matching: { text(of: $0).contains("State was not expected to change") }
  }

  @Test func aClosureThatChangesNothingFails() async {
    let store = TestStore(initialState: Harness.State()) { Harness() }
    await withKnownIssue {
      await store.send(.rename("")) { $0.name = "" }
    } matching: { text(of: $0).contains("Expected state to change, but no change occurred") }
  }

  @Test func sendReportsAtTheCallersLine() async {
    let store = TestStore(initialState: Harness.State()) { Harness() }
    let line: UInt = #line + 2
    await withKnownIssue {
      await store.send(.increment) { $0.count = 5 }
    } matching: { issue in
      issue.sourceLocation?.line == Int(line)
        && issue.sourceLocation?.fileID == "SpoolTestingTests/TestStoreTests.swift"
    }
  }

  @Test func receivingAnActionThatNeverArrivedFailsAndNamesIt() async {
    let store = TestStore(initialState: Harness.State()) { Harness() }
    await withKnownIssue {
      await store.receive(.rename("Blob"))
    } matching: { issue in
      let text = text(of: issue)
      return text.contains("Expected to receive the following action, but didn't")
        && text.contains("Blob")
    }
  }

  @Test func receivingTheWrongActionFailsWithADiff() async {
    let store = TestStore(initialState: Harness.State()) {
      Harness { .run { send in await send(.rename("Blob")) } }
    }
    await store.send(.start)
    await withKnownIssue {
      await store.receive(.rename("Blob Jr.")) { $0.name = "Blob" }
    } matching: { issue in
      let text = text(of: issue)
      return text.contains("Received unexpected action") && text.contains("Blob Jr.")
    }
  }

  @Test func receiveByCaseKeyPathAndByPayload() async {
    let store = TestStore(initialState: Harness.State()) {
      Harness {
        .run { send in
          await send(.rename("Blob"))
          await send(.logged("a"))
          await send(.increment)
        }
      }
    }
    await store.send(.start)
    await store.receive(\.rename) { $0.name = "Blob" }
    await store.receive(\.logged, "a") { $0.log = ["a"] }
    await store.receive({ $0 == .increment }) { $0.count = 1 }
  }

  @Test func anUnreceivedActionFailsAtFinishAndNamesIt() async {
    let store = TestStore(initialState: Harness.State()) {
      Harness { .send(.rename("Blob")) }
    }
    await store.send(.start)
    await withKnownIssue {
      await store.finish()
    } matching: { issue in
      let text = text(of: issue)
      return text.contains("by the end of this test") && text.contains("Blob")
    }
  }

  @Test func anUnreceivedActionFailsWhenTheStoreIsReleased() async {
    await withKnownIssue {
      let store = TestStore(initialState: Harness.State()) {
        Harness { .send(.rename("Blob")) }
      }
      await store.send(.start)
    } matching: { issue in
      let text = text(of: issue)
      return text.contains("by the end of this test") && text.contains("Blob")
    }
  }

  @Test func anEffectStillRunningFailsWhenTheStoreIsReleased() async {
    await withKnownIssue {
      let store = TestStore(initialState: Harness.State()) {
        Harness { .run { _ in await suspendUntilCancelled() } }
      }
      await store.send(.start)
    } matching: { issue in
      let text = text(of: issue)
      return text.contains("still running") && text.contains("start")
    }
  }

  @Test func sendingWithUnreceivedActionsFails() async {
    let store = TestStore(initialState: Harness.State()) {
      Harness { .send(.increment) }
    }
    await store.send(.start)
    await withKnownIssue {
      await store.send(.rename("Blob")) { $0.name = "Blob" }
    } matching: { issue in
      let text = text(of: issue)
      return text.contains("Must handle 1 received action before sending an action")
        && text.contains("increment")
    }
    // The unhandled action is still there to be received, as in TCA.
    await store.receive(.increment) { $0.count = 1 }
  }

  @Test func synchronousSendsAreReceivedInOrder() async {
    let store = TestStore(initialState: Harness.State()) {
      Harness { .concatenate(.send(.increment), .send(.rename("Blob"))) }
    }
    await store.send(.start)
    await store.receive(.increment) { $0.count = 1 }
    await store.receive(.rename("Blob")) { $0.name = "Blob" }
  }

  @Test func skipReceivedActions() async {
    let store = TestStore(initialState: Harness.State()) {
      Harness { .merge(.send(.increment), .send(.increment)) }
    }
    await store.send(.start)
    await store.skipReceivedActions()
    #expect(store.state.count == 2)
    await withKnownIssue {
      await store.skipReceivedActions()
    } matching: { text(of: $0).contains("There were no received actions to skip") }
  }

  @Test func skipInFlightEffectsStopsTrackingThem() async {
    let store = TestStore(initialState: Harness.State()) {
      Harness {
        .run { send in
          await suspendUntilCancelled()
          await send(.increment)
        }
      }
    }
    await store.send(.start)
    await store.skipInFlightEffects()
    // Untracked: `finish` neither waits for the effect nor reports it.
    await store.finish()
    await withKnownIssue {
      await store.skipInFlightEffects()
    } matching: { text(of: $0).contains("There were no in-flight effects to skip") }
  }

  @Test func assertionClosuresRunWithTheTestStoresDependencies() async {
    let now = Date(timeIntervalSince1970: 1_234_567_890)
    let store = TestStore(initialState: Harness.State()) {
      Harness { .send(.increment) }
    } withDependencies: {
      $0.date = .constant(now)
    }
    // Unoverridden under a test runner, `date` would report an issue: these closures see the
    // test store's value instead.
    await store.send(.increment) {
      @Dependency(\.date.now) var date: Date
      #expect(date == now)
      $0.count = 1
    }
    await store.send(.start)
    await store.receive(.increment) {
      @Dependency(\.date.now) var date: Date
      #expect(date == now)
      $0.count = 2
    }
    store.assert { _ in
      @Dependency(\.date.now) var date: Date
      #expect(date == now)
    }
  }

  // TCA's `testDependenciesEarlyBinding`: the initial state, the reducer of a received action
  // and the assertion closures all see the test store's overridden date.
  @Test func dependenciesBindEarly() async {
    let now = Date(timeIntervalSince1970: 1_234_567_890)
    let store = TestStore(initialState: Dated.State()) {
      Dated()
    } withDependencies: {
      $0.date = .constant(now)
    }
    #expect(store.state.date == now)
    await store.send(.tap) {
      @Dependency(\.date.now) var date: Date
      $0.count = 1
      $0.date = date
    }
    await store.receive(.response(42)) {
      @Dependency(\.date.now) var date: Date
      $0.count = 42
      $0.date = date
    }
  }

  @Test func aSkippedEffectKeepsRunningAndItsActionsAreReceived() async {
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
    await store.skipInFlightEffects()
    await clock.advance(by: .seconds(1))
    await store.receive(.increment) { $0.count = 1 }
    await store.finish()
  }

  @Test func cancellationByIDEndsTheEffect() async {
    let store = TestStore(initialState: Harness.State()) {
      Harness {
        .run { _ in await suspendUntilCancelled() }
          .cancellable(id: Harness.CancelID.work)
      }
    }
    await store.send(.start)
    await store.send(.cancel)
    await store.finish()
  }

  @Test func taskCancelByIDFromAnEffectEndsTheEffectsUnderTheID() async {
    let store = TestStore(initialState: Harness.State()) {
      Harness {
        .merge(
          .run { _ in await suspendUntilCancelled() }.cancellable(id: Harness.CancelID.work),
          .run { _ in Task.cancel(id: Harness.CancelID.work) }
        )
      }
    }
    await store.send(.start)
    await store.finish()
  }

  @Test func taskFinishAndCancel() async {
    let clock = TestClock()
    let store = TestStore(initialState: Harness.State()) {
      Harness {
        .run { send in
          try await clock.sleep(for: .seconds(1))
          await send(.increment)
        }
      }
    }
    let first = await store.send(.start)
    await clock.advance(by: .seconds(1))
    await first.finish()
    await store.receive(.increment) { $0.count = 1 }

    let second = await store.send(.start)
    #expect(!second.isCancelled)
    await second.cancel()
    #expect(second.isCancelled)
    await withKnownIssue {
      let third = await store.send(.start)
      await third.finish(timeout: .zero)
    } matching: { text(of: $0).contains("Expected task to finish, but it is still in-flight") }
    await store.skipInFlightEffects()
  }

  // TCA's `testCascadingTaskCancellation`: the `.task` effect has ended when the test cancels;
  // the cancellation must still reach what its `.response` started, and so on down.
  @Test func cancellingASendsTaskCancelsTheEffectsOfTheActionsItsEffectsSent() async {
    let store = TestStore(initialState: 0) { cascade() }
    let task = await store.send(.task)
    await store.receive(.response)
    await store.receive(.response1)
    await store.receive(.response2)
    await task.cancel()
  }

  @Test func cancellingASendsTaskLeavesTheEffectsOfOtherSends() async {
    let store = TestStore(initialState: 0) { cascade() }
    let first = await store.send(.task)
    await store.receive(.response)
    await store.receive(.response1)
    await store.receive(.response2)
    let second = await store.send(.response2)
    await first.cancel()
    #expect(!second.isCancelled)
    await withKnownIssue {
      await second.finish(timeout: .zero)
    } matching: { text(of: $0).contains("Expected task to finish, but it is still in-flight") }
    await second.cancel()
    #expect(second.isCancelled)
  }

  // As TCA's: finishing a send's task waits for the effects that the actions its effect sent
  // started, though the effect itself has ended.
  @Test func finishingASendsTaskWaitsForTheEffectsOfTheActionsItsEffectsSent() async {
    let clock = TestClock()
    let store = TestStore(initialState: 0) {
      Reduce<Int, CascadeAction> { state, action in
        switch action {
        case .task:
          return .run { send in await send(.response) }
        case .response:
          return .run { send in
            try await clock.sleep(for: .seconds(1))
            await send(.response1)
          }
        case .response1, .response2:
          state += 1
          return .none
        }
      }
    }
    let task = await store.send(.task)
    await store.receive(.response)
    await withKnownIssue {
      await task.finish(timeout: .zero)
    } matching: { issue in
      let text = text(of: issue)
      return text.contains("Expected task to finish, but it is still in-flight")
        && text.contains("CascadeAction.response")
    }
    await clock.advance(by: .seconds(1))
    await task.finish()
    await store.receive(.response1) { $0 = 1 }
  }

  // TCA's `testDismissCancelsEffects`: `dismiss()` in an effect of the root feature dismisses
  // the test store, which cancels its effects (the one that never ends included).
  @Test func dismissAtTheRootCancelsTheTestStoresEffects() async {
    let store = TestStore(initialState: 0) { dismissable() }
    await store.send(.start) { $0 = 1 }
    await store.send(.close)
  }

  // TCA's `testDismissedStoreSend`: a dismissed test store refuses later sends.
  @Test func aDismissedTestStoreRefusesSends() async {
    let store = TestStore(initialState: 0) { dismissable() }
    await store.send(.close)
    await withKnownIssue {
      await store.send(.start) { $0 = 1 }
    } matching: { text(of: $0).contains("Can't send action to dismissed test store.") }
    #expect(store.state == 0)
  }

  @Test func aDismissOverrideRunsInsteadOfDismissingTheTestStore() async {
    let dismissals = LockIsolated(0)
    let store = TestStore(initialState: 0) {
      dismissable()
    } withDependencies: {
      $0.dismiss = DismissEffect { dismissals.withValue { $0 += 1 } }
    }
    await store.send(.close)
    #expect(dismissals.value == 1)
    await store.send(.start) { $0 = 1 }
    await store.skipInFlightEffects()
  }

  @Test func effectsUseTheOverriddenDependencies() async {
    let clock = TestClock()
    let store = TestStore(initialState: Counter.State()) {
      Counter()
    } withDependencies: {
      $0.numberFact.fetch = { _ in throw FactError() }
    }
    await store.send(.factButtonTapped) { $0.isLoading = true }
    await store.receive(\.factFailed) { $0.isLoading = false }
    store.dependencies.numberFact.fetch = { "\($0) is zero." }
    await store.send(.factButtonTapped) { $0.isLoading = true }
    await clock.advance(by: .seconds(1))
    await store.receive(.factResponse("0 is zero.")) {
      $0.isLoading = false
      $0.fact = "0 is zero."
    }
  }

  @Test func anEffectThatHopsToAnotherActorIsAwaited() async {
    let elsewhere = Elsewhere()
    let store = TestStore(initialState: Harness.State()) {
      Harness {
        .run { send in
          let value = await elsewhere.echo("hopped")
          await send(.logged(value))
        }
      }
    }
    await store.send(.start)
    await store.receive(.logged("hopped")) { $0.log = ["hopped"] }
  }

  @Test @MainActor func worksFromTheMainActor() async {
    let store = TestStore(initialState: Counter.State()) {
      Counter()
    } withDependencies: {
      $0.numberFact.fetch = { "\($0) is a good number." }
    }
    await store.send(.factButtonTapped) { $0.isLoading = true }
    await store.receive(\.factResponse) {
      $0.isLoading = false
      $0.fact = "0 is a good number."
    }
  }
}

private enum CascadeAction: Equatable, Sendable { case task, response, response1, response2 }

/// Each action's effect sends the next one, and all but the first also start an effect that
/// never ends: only a cascading cancellation ends them.
private func cascade() -> Reduce<Int, CascadeAction> {
  Reduce { _, action in
    switch action {
    case .task:
      return .run { send in await send(.response) }
    case .response:
      return .merge(
        .run { _ in try await Task.never() },
        .run { send in await send(.response1) }
      )
    case .response1:
      return .merge(
        .run { _ in try await Task.never() },
        .run { send in await send(.response2) }
      )
    case .response2:
      return .run { _ in try await Task.never() }
    }
  }
}

private enum DismissableAction: Equatable, Sendable { case start, close }

/// `.start` counts and starts an effect that never ends; `.close` dismisses the feature.
private func dismissable() -> Reduce<Int, DismissableAction> {
  Reduce { state, action in
    @Dependency(\.dismiss) var dismiss
    switch action {
    case .start:
      state += 1
      return .run { _ in try await Task.never() }
    case .close:
      return .run { _ in await dismiss() }
    }
  }
}

/// Reads the date when its state is made and when it reduces a response.
private struct Dated: Reducer {
  struct State: Equatable, Sendable {
    var count = 0
    var date: Date
    init() {
      @Dependency(\.date.now) var now: Date
      self.date = now
    }
  }
  enum Action: Equatable, Sendable {
    case tap
    case response(Int)
  }
  @Dependency(\.date.now) var now: Date

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .tap:
      state.count += 1
      return .run { send in await send(.response(42)) }
    case let .response(number):
      state.count = number
      state.date = now
      return .none
    }
  }
}

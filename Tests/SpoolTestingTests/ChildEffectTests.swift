import Clocks
import Spool
import SpoolTesting
import Testing

/// Child effects end with their state, and child cancellation IDs belong to their child, on
/// the test store: an exhaustive store fails a test whose child effects outlive their child,
/// and every `.finished` a download sends must be received.
@Suite struct ChildEffectTests {
  // MARK: Effects end with their state

  @Test func removingARowStopsItsTimer() async {
    let clock = TestClock()
    let store = TestStore(initialState: Downloads.State(rows: [.init(id: 1), .init(id: 2)])) {
      Downloads()
    } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.rows(.element(id: 1, action: .startTimer)))
    await clock.advance(by: .seconds(1))
    await store.receive(.rows(.element(id: 1, action: .tick))) {
      $0.rows[id: 1]?.ticks = 1
    }
    await store.send(.remove(id: 1)) {
      $0.rows.remove(id: 1)
    }
    await clock.advance(by: .seconds(5))
    await store.finish()
  }

  @Test func dismissingAnIfLetChildStopsItsTimer() async {
    let clock = TestClock()
    let store = TestStore(initialState: Downloads.State(detail: .init(id: 1))) {
      Downloads()
    } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.detail(.startTimer))
    await clock.advance(by: .seconds(1))
    await store.receive(.detail(.tick)) { $0.detail?.ticks = 1 }
    await store.send(.dismiss) { $0.detail = nil }
    await clock.advance(by: .seconds(5))
    await store.finish()
  }

  @Test func leavingAnIfCaseLetCaseStopsItsTimer() async {
    let clock = TestClock()
    let store = TestStore(initialState: Session.State.active(.init(id: 1))) {
      Session()
    } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.active(.startTimer))
    await clock.advance(by: .seconds(1))
    await store.receive(.active(.tick)) { $0 = .active(.init(id: 1, ticks: 1)) }
    await store.send(.deactivate) { $0 = .idle }
    await clock.advance(by: .seconds(5))
    await store.finish()
  }

  // MARK: IDs belong to their child

  @Test func twoRowsDownloadsBothFinish() async {
    let clock = TestClock()
    let store = TestStore(initialState: Downloads.State(rows: [.init(id: 1), .init(id: 2)])) {
      Downloads()
    } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.rows(.element(id: 1, action: .start)))
    await store.send(.rows(.element(id: 2, action: .start)))
    await clock.advance(by: .seconds(2))
    await store.receive(.rows(.element(id: 1, action: .finished))) {
      $0.rows[id: 1]?.finished = 1
    }
    await store.receive(.rows(.element(id: 2, action: .finished))) {
      $0.rows[id: 2]?.finished = 1
    }
  }

  @Test func cancellingRow1LeavesRow2() async {
    let clock = TestClock()
    let store = TestStore(initialState: Downloads.State(rows: [.init(id: 1), .init(id: 2)])) {
      Downloads()
    } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.rows(.element(id: 1, action: .start)))
    await store.send(.rows(.element(id: 2, action: .start)))
    await store.send(.rows(.element(id: 1, action: .stop)))
    await clock.advance(by: .seconds(2))
    await store.receive(.rows(.element(id: 2, action: .finished))) {
      $0.rows[id: 2]?.finished = 1
    }
  }

  @Test func taskCancelFromRow1LeavesRow2() async {
    let clock = TestClock()
    let store = TestStore(initialState: Downloads.State(rows: [.init(id: 1), .init(id: 2)])) {
      Downloads()
    } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.rows(.element(id: 1, action: .start)))
    await store.send(.rows(.element(id: 2, action: .start)))
    await store.send(.rows(.element(id: 1, action: .stopFromEffect)))
    await clock.advance(by: .seconds(2))
    await store.receive(.rows(.element(id: 2, action: .finished))) {
      $0.rows[id: 2]?.finished = 1
    }
  }

  @Test func withTaskCancellationInTwoRowsKeepsBoth() async {
    let clock = TestClock()
    let store = TestStore(initialState: Downloads.State(rows: [.init(id: 1), .init(id: 2)])) {
      Downloads()
    } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.rows(.element(id: 1, action: .startInBody)))
    await store.send(.rows(.element(id: 2, action: .startInBody)))
    await clock.advance(by: .seconds(2))
    await store.receive(.rows(.element(id: 1, action: .finished))) {
      $0.rows[id: 1]?.finished = 1
    }
    await store.receive(.rows(.element(id: 2, action: .finished))) {
      $0.rows[id: 2]?.finished = 1
    }
  }

  @Test func aParentLevelIDStillCancelsTheParentsEffect() async {
    let clock = TestClock()
    let store = TestStore(initialState: Downloads.State(rows: [.init(id: 1)])) {
      Downloads()
    } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.startParent)
    await store.send(.rows(.element(id: 1, action: .start)))
    // The row's `cancelInFlight` replaced nothing of the parent's; the parent's cancel
    // reaches its own effect and not the row's.
    await store.send(.stopParent)
    await clock.advance(by: .seconds(1))
    await store.receive(.rows(.element(id: 1, action: .finished))) {
      $0.rows[id: 1]?.finished = 1
    }
    await store.send(.startParent)
    await store.send(.rows(.element(id: 1, action: .start)))
    await clock.advance(by: .seconds(1))
    await store.receive(.parentFinished) { $0.parentFinished = 1 }
    await store.receive(.rows(.element(id: 1, action: .finished))) {
      $0.rows[id: 1]?.finished = 2
    }
  }
}

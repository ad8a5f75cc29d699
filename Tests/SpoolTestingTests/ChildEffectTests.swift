import Clocks
import Spool
import SpoolTesting
import Testing

/// Child effects end with their state, on the test store: an exhaustive store fails a test
/// whose child effects outlive their child.
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
}

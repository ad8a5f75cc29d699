import Clocks
import Spool
import SpoolTesting
import Testing

@Suite struct TimerTests {
  @Test func ticksEverySecondUntilStopped() async {
    let clock = TestClock()
    let store = TestStore(initialState: Ticker.State()) {
      Ticker()
    } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.startButtonTapped) { $0.isRunning = true }
    await clock.advance(by: .milliseconds(999))
    await clock.advance(by: .milliseconds(1))
    await store.receive(\.tick) { $0.secondsElapsed = 1 }
    await clock.advance(by: .seconds(1))
    await store.receive(\.tick) { $0.secondsElapsed = 2 }
    await clock.advance(by: .seconds(1))
    await store.receive(\.tick) { $0.secondsElapsed = 3 }
    await store.send(.stopButtonTapped) { $0.isRunning = false }
    await clock.advance(by: .seconds(5))
    await store.finish()
  }

  @Test func aTimerLeftRunningFailsTheTestAndNamesTheAction() async {
    let clock = TestClock()
    await withKnownIssue {
      let store = TestStore(initialState: Ticker.State()) {
        Ticker()
      } withDependencies: {
        $0.continuousClock = clock
      }
      await store.send(.startButtonTapped) { $0.isRunning = true }
      await store.finish(timeout: .zero)
    } matching: { issue in
      let text = String(describing: issue)
      return text.contains("An effect returned for this action is still running")
        && text.contains("startButtonTapped")
    }
  }
}

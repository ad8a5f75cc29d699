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

  /// TCA's own Timers test: one advance over five intervals, then five ticks.
  @Test func anAdvanceOverSeveralIntervalsDeliversEveryTick() async {
    let clock = TestClock()
    let store = TestStore(initialState: Ticker.State()) {
      Ticker()
    } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.startButtonTapped) { $0.isRunning = true }
    await clock.advance(by: .seconds(5))
    for second in 1...5 {
      await store.receive(\.tick) { $0.secondsElapsed = second }
    }
    await store.send(.stopButtonTapped) { $0.isRunning = false }
  }

  /// The same with a loop of sleeps, whose next deadline depends on when the effect ran.
  @Test func anAdvanceOverSeveralSleepsInALoopDeliversEverySend() async {
    let clock = TestClock()
    let store = TestStore(initialState: Harness.State()) {
      Harness {
        .run { send in
          for _ in 1...3 {
            try await clock.sleep(for: .seconds(1))
            await send(.increment)
          }
        }
      }
    }
    await store.send(.start)
    await clock.advance(by: .seconds(3))
    await store.receive(.increment) { $0.count = 1 }
    await store.receive(.increment) { $0.count = 2 }
    await store.receive(.increment) { $0.count = 3 }
    await store.finish()
  }

  /// An advance that ends between two ticks leaves the next one for the next advance.
  @Test func anAdvanceDeliversOnlyTheTicksThatAreDue() async {
    let clock = TestClock()
    let store = TestStore(initialState: Ticker.State()) {
      Ticker()
    } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.startButtonTapped) { $0.isRunning = true }
    await clock.advance(by: .milliseconds(2_500))
    await store.receive(\.tick) { $0.secondsElapsed = 1 }
    await store.receive(\.tick) { $0.secondsElapsed = 2 }
    await clock.advance(by: .milliseconds(500))
    await store.receive(\.tick) { $0.secondsElapsed = 3 }
    await store.send(.stopButtonTapped) { $0.isRunning = false }
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

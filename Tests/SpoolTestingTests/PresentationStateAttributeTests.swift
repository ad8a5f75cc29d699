import Clocks
import Dependencies
import Spool
import SpoolTesting
import Testing

/// `@PresentationState`, TCA's older spelling of `@Presents`, on the exhaustive test store: a
/// feature written with it presents, runs and dismisses its child as one written with `@Presents`
/// does, and the child's timer ends with it.
@Suite struct PresentationStateAttributeTests {
  @Reducer
  struct Countdown {
    struct State: Equatable, Sendable {
      var remaining: Int
    }
    enum Action: Equatable, Sendable {
      case start
      case tick
    }
    @Dependency(\.continuousClock) var clock
    var body: some ReducerOf<Self> {
      Reduce { state, action in
        switch action {
        case .start:
          return .run { [clock] send in
            for await _ in clock.timer(interval: .seconds(1)) {
              await send(.tick)
            }
          }
        case .tick:
          state.remaining -= 1
          return .none
        }
      }
    }
  }

  @Reducer
  struct Launcher {
    struct State: Equatable, Sendable {
      @PresentationState var countdown: Countdown.State?
    }
    enum Action: Equatable, Sendable {
      case countdown(PresentationAction<Countdown.Action>)
      case openTapped(Int)
    }
    var body: some ReducerOf<Self> {
      Reduce { state, action in
        switch action {
        case let .openTapped(seconds):
          state.countdown = Countdown.State(remaining: seconds)
          return .none
        case .countdown:
          return .none
        }
      }
      .ifLet(\.$countdown, action: \.countdown) { Countdown() }
    }
  }

  @Test func presentsRunsAndDismissesTheChild() async {
    let clock = TestClock()
    let store = TestStore(initialState: Launcher.State()) {
      Launcher()
    } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.openTapped(3)) {
      $0.countdown = Countdown.State(remaining: 3)
    }
    await store.send(\.countdown.presented.start)
    await clock.advance(by: .seconds(2))
    await store.receive(\.countdown.presented.tick) {
      $0.countdown?.remaining = 2
    }
    await store.receive(\.countdown.presented.tick) {
      $0.countdown?.remaining = 1
    }
    // The dismissal cancels the timer: the test store would fail on a tick it did not receive.
    await store.send(.countdown(.dismiss)) {
      $0.countdown = nil
    }
    await clock.advance(by: .seconds(5))
  }

  /// `$countdown` is the same `PresentationState` that `@Presents` gives, and the holder's
  /// `Equatable` is synthesized through it.
  @Test func theProjectedValueIsThePresentationState() {
    var state = Launcher.State()
    state.countdown = Countdown.State(remaining: 1)
    let projected: PresentationState<Countdown.State> = state.$countdown
    #expect(projected.wrappedValue == Countdown.State(remaining: 1))
    #expect(state != Launcher.State())
    state.$countdown = PresentationState(wrappedValue: nil)
    #expect(state == Launcher.State())
  }
}

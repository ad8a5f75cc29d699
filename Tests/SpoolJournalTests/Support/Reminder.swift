import SpoolCore

/// A feature with a long-lived effect (a reminder that fires after a delay on the continuous
/// clock), and a `.recovered` action that re-arms it after a recovery: the pattern of
/// "Restarting effects" in SpoolJournal's article on recording and recovering.
struct Reminder: Reducer {
  struct State: Codable, Equatable, Sendable {
    var armed = false
    var fired = false
  }

  enum Action: Codable, Equatable, Sendable {
    case arm
    case fired
    /// Sent by the app once after `recover`: restarts the effects the state says should run.
    case recovered
  }

  enum CancelID { case timer }

  /// The reminder's clock: a real one that never reaches the hour in a test, or an
  /// `ImmediateClock` to fire at once.
  let clock: any Clock<Duration>

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .arm:
      state.armed = true
      return timer()
    case .fired:
      state.armed = false
      state.fired = true
      return .none
    case .recovered:
      return state.armed ? timer() : .none
    }
  }

  private func timer() -> Effect<Action> {
    .run { [clock] send in
      try await clock.sleep(for: .seconds(3_600))
      await send(.fired)
    }
    .cancellable(id: CancelID.timer, cancelInFlight: true)
  }
}

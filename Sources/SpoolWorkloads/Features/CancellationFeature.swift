import Dependencies
import SpoolCore

/// The feature the `cancellation` workload drives: every action restarts a long effect
/// (an hour's sleep on the clock) under one cancellation ID with `cancelInFlight`, as a
/// "reload" button does; `.stop` cancels the last one.
///
/// ```swift
/// let store = Store(initialState: CancellationFeature.State()) { CancellationFeature() }
/// store.enqueue(.restart(1))
/// store.enqueue(.stop)
/// await store.finish()
/// print(store.runningEffectCount)  // 0
/// ```
public struct CancellationFeature: Reducer, Sendable {
  /// Restarts asked for, and long effects that ran to their end (none should).
  public struct State: Equatable, Sendable {
    public var restarts = 0
    public var fired = 0
    /// Creates the reducer.
    public init() {}
  }

  /// Restart the long effect, stop it, or its (never expected) completion.
  public enum Action: Equatable, Sendable {
    case restart(Int)
    case stop
    case fired(Int)
  }

  enum CancelID { case longEffect }

  @Dependency(\.continuousClock) var clock

  /// Creates the reducer.

  public init() {}

  /// Reduces one action; the type's documentation says what each action does.

  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case let .restart(value):
      state.restarts += 1
      return .run { [clock] send in
        try await clock.sleep(for: .seconds(3_600))
        await send(.fired(value))
      }
      .cancellable(id: CancelID.longEffect, cancelInFlight: true)
    case .stop:
      return .cancel(id: CancelID.longEffect)
    case .fired:
      state.fired += 1
      return .none
    }
  }
}

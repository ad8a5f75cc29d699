import Spool

/// A feature whose actions cover every effect outcome, overlapping effects of one case, and a
/// nested case.
struct Feature: Reducer {
  enum CancelID { case long }

  struct State: Equatable, Sendable { var count = 0 }

  enum Child: Equatable, Sendable {
    case increment
    case startEffect
  }

  enum Action: Equatable, Sendable {
    case tap
    case startEffect
    case response
    case startLong
    case stopLong
    case fail
    case child(Child)
  }

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .tap, .child(.increment):
      state.count += 1
      return .none
    case .startEffect, .child(.startEffect):
      return .run { send in await send(.response) }
    case .response:
      state.count += 100
      return .none
    case .startLong:
      // Never ends by itself: ends when `.stopLong` cancels it (no sleep is waited out).
      return .run { _ in try await Task.sleep(for: .seconds(3600)) }
        .cancellable(id: CancelID.long)
    case .stopLong:
      return .cancel(id: CancelID.long)
    case .fail:
      struct Failure: Error {}
      return .run { _ in throw Failure() } catch: { _, _ in }
    }
  }
}

extension Store where State == Feature.State, Action == Feature.Action {
  /// Drives a store through a known script: 100 taps, 3 nested increments, one effect per
  /// outcome, two overlapping long effects of one case (both cancelled), one nested effect.
  ///
  /// Reduced actions: 100 `tap`, 3 `child(.increment)`, 1 `startEffect`, 2 `response`,
  /// 2 `startLong`, 1 `stopLong`, 1 `fail`, 1 `child(.startEffect)`. Effects: `startEffect`
  /// and `child(.startEffect)` finished, `startLong` cancelled twice, `fail` failed.
  func runScript() async {
    for _ in 0..<100 { enqueue(.tap) }
    for _ in 0..<3 { await send(.child(.increment)) }
    await send(.startEffect).finish()
    let first = await send(.startLong)
    let second = await send(.startLong)
    await send(.stopLong)
    await first.finish()
    await second.finish()
    await send(.fail).finish()
    await send(.child(.startEffect)).finish()
    await finish()
  }
}

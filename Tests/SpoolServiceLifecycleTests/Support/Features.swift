import Spool
import Synchronization

/// What a ``Worker``'s effect did.
final class EffectProbe: Sendable {
  let (gate, release) = AsyncStream.makeStream(of: Void.self)
  private let wasCancelled = Atomic(false)

  var cancelled: Bool { wasCancelled.load(ordering: .acquiring) }

  func markCancelled() { wasCancelled.store(true, ordering: .releasing) }
}

/// A feature whose effect waits until its probe's gate opens (or it is cancelled).
struct Worker: Reducer {
  struct State: Equatable, Sendable { var done = false }

  enum Action: Equatable, Sendable {
    case start
    case done
  }

  let probe: EffectProbe

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .start:
      return .run { [probe] send in
        for await _ in probe.gate { break }
        if Task.isCancelled {
          probe.markCancelled()
        } else {
          await send(.done)
        }
      }
    case .done:
      state.done = true
      return .none
    }
  }
}

import CasePaths
import ConcurrencyExtras
import Spool

/// A small feature whose `start` runs the effect a test gives it: for testing the test store
/// itself.
struct Harness: Reducer {
  struct State: Equatable, Sendable {
    var count = 0
    var name = ""
    var log: [String] = []
  }

  @CasePathable
  enum Action: Equatable, Sendable {
    case start
    case increment
    case rename(String)
    case logged(String)
    case cancel
  }

  enum CancelID { case work }

  let effect: @Sendable () -> Effect<Action>

  init(effect: @escaping @Sendable () -> Effect<Action> = { .none }) {
    self.effect = effect
  }

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .start:
      return effect()
    case .increment:
      state.count += 1
      return .none
    case let .rename(name):
      state.name = name
      return .none
    case let .logged(entry):
      state.log.append(entry)
      return .none
    case .cancel:
      return .cancel(id: CancelID.work)
    }
  }
}

/// Suspends until cancelled.
func suspendUntilCancelled() async {
  let never = AsyncStream<Never> { _ in }
  for await _ in never {}
}

/// An actor off the test store's executor, for effects that hop away and back.
actor Elsewhere {
  func echo(_ value: String) -> String { value }
}

/// The text of an issue, for `withKnownIssue`'s matcher.
func text(of issue: Any) -> String { String(describing: issue) }

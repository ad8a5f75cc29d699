import Dependencies
import Spool

/// A feature whose reducer reads a dependency: proves that a workload's `withDependencies`
/// reaches the store it builds.
struct Stepper: Reducer {
  struct State: Equatable, Sendable {
    var total = 0
  }

  enum Action: Equatable, Sendable {
    case step
  }

  @Dependency(\.stepSize) var stepSize

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    state.total += stepSize
    return .none
  }
}

private enum StepSizeKey: DependencyKey {
  static let liveValue = 1
  static let testValue = 1
}

extension DependencyValues {
  var stepSize: Int {
    get { self[StepSizeKey.self] }
    set { self[StepSizeKey.self] = newValue }
  }
}

import CasePathsCore
import SpoolCore

// By hand, not `@CasePathable`: see TodosFeature+CasePaths.swift.
extension EchoServerFeature.Action: CasePathable {
  /// The case paths of ``EchoServerFeature/Action``.
  public struct AllCasePaths: Sendable {
    /// The case path of ``EchoServerFeature/Action/connections(_:)``.
    public var connections:
      AnyCasePath<EchoServerFeature.Action, IdentifiedActionOf<EchoConnectionFeature>>
    {
      AnyCasePath(
        embed: { .connections($0) },
        extract: {
          guard case let .connections(action) = $0 else { return nil }
          return action
        }
      )
    }
  }

  /// The case paths of every case that has one.
  public static var allCasePaths: AllCasePaths { AllCasePaths() }
}

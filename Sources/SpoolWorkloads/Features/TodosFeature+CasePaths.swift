import CasePathsCore
import SpoolCore

// By hand, not `@CasePathable`: SpoolWorkloads is built into the `spool` executable, which must
// not compile swift-syntax. Only the case `forEach` needs has a path.
extension TodosFeature.Action: CasePathable {
  /// The case paths of ``TodosFeature/Action``.
  public struct AllCasePaths: Sendable {
    /// The case path of ``TodosFeature/Action/rows(_:)``.
    public var rows: AnyCasePath<TodosFeature.Action, IdentifiedActionOf<TodoFeature>> {
      AnyCasePath(
        embed: { .rows($0) },
        extract: {
          guard case let .rows(action) = $0 else { return nil }
          return action
        }
      )
    }
  }

  /// The case paths of every case that has one.
  public static var allCasePaths: AllCasePaths { AllCasePaths() }
}

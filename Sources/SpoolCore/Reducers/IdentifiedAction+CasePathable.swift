import CasePathsCore

// Written by hand rather than by `@CasePathable`: this module is free of macros (see
// PresentationAction+CasePathable.swift). The shape is the macro's.
extension IdentifiedAction: CasePathable, CasePathIterable {
  /// The case paths of ``IdentifiedAction``: `\.element`.
  public struct AllCasePaths: CasePathReflectable, Sendable, Sequence {
    /// The case path of whichever case `root` is.
    public subscript(root: IdentifiedAction) -> PartialCaseKeyPath<IdentifiedAction> {
      \.element
    }

    /// The case path of ``IdentifiedAction/element(id:action:)``.
    public var element: AnyCasePath<IdentifiedAction, (id: ID, action: Action)> {
      AnyCasePath(
        embed: { .element(id: $0.id, action: $0.action) },
        extract: {
          guard case let .element(id, action) = $0 else { return nil }
          return (id, action)
        }
      )
    }

    /// Iterates over the case paths.
    public func makeIterator() -> IndexingIterator<[PartialCaseKeyPath<IdentifiedAction>]> {
      [\.element].makeIterator()
    }
  }

  /// The case paths of every case.
  public static var allCasePaths: AllCasePaths { AllCasePaths() }
}

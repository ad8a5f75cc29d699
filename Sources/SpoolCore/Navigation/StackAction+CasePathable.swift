import CasePathsCore

// Written by hand rather than by `@CasePathable`: this module is free of macros (see
// PresentationAction+CasePathable.swift). The shape is the macro's.
extension StackAction: CasePathable, CasePathIterable {
  /// The case paths of ``StackAction``: `\.element`, `\.popFrom` and `\.push`.
  public struct AllCasePaths: CasePathReflectable, Sendable, Sequence {
    /// The case path of whichever case `root` is.
    public subscript(root: StackAction) -> PartialCaseKeyPath<StackAction> {
      switch root {
      case .element: \.element
      case .popFrom: \.popFrom
      case .push: \.push
      }
    }

    /// The case path of ``StackAction/element(id:action:)``.
    public var element: AnyCasePath<StackAction, (id: StackElementID, action: Action)> {
      AnyCasePath(
        embed: { .element(id: $0.id, action: $0.action) },
        extract: {
          guard case let .element(id, action) = $0 else { return nil }
          return (id, action)
        }
      )
    }

    /// The case path of ``StackAction/popFrom(id:)``.
    public var popFrom: AnyCasePath<StackAction, StackElementID> {
      AnyCasePath(
        embed: { .popFrom(id: $0) },
        extract: {
          guard case let .popFrom(id) = $0 else { return nil }
          return id
        }
      )
    }

    /// The case path of ``StackAction/push(id:state:)``.
    public var push: AnyCasePath<StackAction, (id: StackElementID, state: State)> {
      AnyCasePath(
        embed: { .push(id: $0.id, state: $0.state) },
        extract: {
          guard case let .push(id, state) = $0 else { return nil }
          return (id, state)
        }
      )
    }

    /// Iterates over the case paths, in the order the cases are declared.
    public func makeIterator() -> IndexingIterator<[PartialCaseKeyPath<StackAction>]> {
      [\.element, \.popFrom, \.push].makeIterator()
    }
  }

  /// The case paths of every case.
  public static var allCasePaths: AllCasePaths { AllCasePaths() }
}

import CasePathsCore

// Written by hand rather than by `@CasePathable`: this module is free of macros, so that
// programs built on it (the `spool` executable among them) never compile swift-syntax. The
// shape is the macro's, so case key paths (`\.destination.presented.save`) work as in TCA.
extension PresentationAction: CasePathable, CasePathIterable {
  /// The case paths of ``PresentationAction``: `\.dismiss` and `\.presented`, and, through
  /// dynamic member lookup, the cases of the presented action itself.
  @dynamicMemberLookup
  public struct AllCasePaths: CasePathReflectable, Sendable, Sequence {
    /// The case path of whichever case `root` is.
    public subscript(root: PresentationAction) -> PartialCaseKeyPath<PresentationAction> {
      switch root {
      case .dismiss: \.dismiss
      case .presented: \.presented
      }
    }

    /// The case path of ``PresentationAction/dismiss``.
    public var dismiss: AnyCasePath<PresentationAction, Void> {
      AnyCasePath(
        embed: { .dismiss },
        extract: {
          guard case .dismiss = $0 else { return nil }
          return ()
        }
      )
    }

    /// The case path of ``PresentationAction/presented(_:)``.
    public var presented: AnyCasePath<PresentationAction, Action> {
      AnyCasePath(
        embed: { .presented($0) },
        extract: {
          guard case let .presented(action) = $0 else { return nil }
          return action
        }
      )
    }

    /// The case path of a case of the presented action, through
    /// ``PresentationAction/presented(_:)``: `\.destination.editor` is
    /// `\.destination.presented.editor`, as in TCA.
    ///
    /// ```swift
    /// await store.send(\.destination.editor.saveTapped)
    /// ```
    public subscript<AppendedAction>(
      dynamicMember keyPath: CaseKeyPath<Action, AppendedAction>
    ) -> AnyCasePath<PresentationAction, AppendedAction> where Action: CasePathable {
      // Through a case path, which is Sendable where a key path is not.
      let appended = AnyCasePath(keyPath)
      return AnyCasePath(
        embed: { .presented(appended.embed($0)) },
        extract: {
          guard case let .presented(action) = $0 else { return nil }
          return appended.extract(from: action)
        }
      )
    }

    /// Iterates over the case paths, in the order the cases are declared.
    public func makeIterator() -> IndexingIterator<[PartialCaseKeyPath<PresentationAction>]> {
      [\.dismiss, \.presented].makeIterator()
    }
  }

  /// The case paths of every case.
  public static var allCasePaths: AllCasePaths { AllCasePaths() }
}

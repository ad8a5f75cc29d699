import CasePathsCore

/// The action of a presented child feature: one of the child's actions, or a request to
/// dismiss it.
///
/// The parent's action has a case holding it, and the presentation
/// `ifLet(_:action:destination:)` routes it: it runs the child on ``presented(_:)`` while the
/// child is presented, and sets the child's state to `nil` on ``dismiss``. Case key paths go
/// through it, in reducers and tests alike: `\.destination.presented.editor.saveTapped`.
///
/// ```swift
/// @CasePathable
/// enum Action: Sendable {
///   case destination(PresentationAction<Destination.Action>)
/// }
/// await store.send(.destination(.presented(.editor(.saveTapped))))
/// await store.send(.destination(.dismiss))
/// ```
public enum PresentationAction<Action: Sendable>: Sendable {
  /// Dismisses the presented child: its state becomes `nil` and its effects are cancelled.
  /// Sent by a child's effect through ``DismissEffect``, or by the parent itself.
  case dismiss
  /// An action of the presented child.
  indirect case presented(Action)
}

extension PresentationAction: Equatable where Action: Equatable {}
extension PresentationAction: Hashable where Action: Hashable {}

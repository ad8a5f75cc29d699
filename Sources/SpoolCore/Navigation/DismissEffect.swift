import Dependencies
import IssueReporting

/// Dismisses the presented feature whose effect calls it: TCA's `@Dependency(\.dismiss)`.
///
/// Called in an effect of a child presented with `ifLet(_:action:destination:)` (on a
/// ``PresentationState``), it sends the parent's ``PresentationAction/dismiss``; called in
/// an effect of an element of a stack run by
/// ``Reducer/forEach(_:action:destination:fileID:filePath:line:column:)``, it sends
/// ``StackAction/popFrom(id:)`` for that element. Either way the child's state goes away and
/// its effects, the calling one included, are cancelled. With presentations nested, the
/// innermost one around the calling effect is dismissed. `@Dependency(\.isPresented)` tells a
/// feature whether it runs as such a child.
///
/// ```swift
/// struct Editor: Reducer {
///   @Dependency(\.dismiss) var dismiss
///   // …
///   case .saveTapped:
///     return .run { [text = state.text] _ in
///       try await storage.save(text)
///       await dismiss()
///     }
/// }
/// ```
///
/// Where Spool differs from TCA: the dismissal is an action sent to the store, like any
/// ``Send`` from an effect: `dismiss()` returns once it is enqueued, not once it is reduced,
/// and the effect is cancelled when the store reduces it. Called from a cancelled effect (the
/// child is already going away), it does nothing. Called outside an effect of a presented
/// child or stack element (in a reducer, or in a feature that nobody presented), it reports an
/// issue that opens with TCA's words, "A reducer requested dismissal at …, but couldn't be
/// dismissed.", and does nothing. Under a `TestStore`, as in TCA:
///
/// - In an effect of the test store's root feature, it dismisses the test store: its effects
///   are cancelled and later sends are refused.
/// - In an effect of a child that the root feature runs without a presentation (`ifLet` on a
///   plain optional, `ifCaseLet`, `forEach` on an `IdentifiedArray`), it does nothing and
///   reports nothing: the test store goes on (TCA's `testDismissWithoutPresentationTools`).
///
/// A child that such an operator runs inside a presented child or a stack element dismisses
/// that presentation, as the presented child's own effects do.
public struct DismissEffect: Sendable {
  /// The dismissal a test put in place of the presentation's; `nil` for the live one.
  let override: (@Sendable () async -> Void)?

  init() {
    self.override = nil
  }

  /// A dismissal that runs `dismiss` instead of dismissing a presented child: for the test of
  /// a child feature run without its parent.
  ///
  /// - Parameter dismiss: What calling the effect does.
  ///
  /// ```swift
  /// let dismissed = LockIsolated(false)
  /// let store = TestStore(initialState: Editor.State()) {
  ///   Editor()
  /// } withDependencies: {
  ///   $0.dismiss = DismissEffect { dismissed.setValue(true) }
  /// }
  /// ```
  public init(_ dismiss: @escaping @Sendable () async -> Void) {
    self.override = dismiss
  }

  /// Dismisses the presented child or stack element whose effect calls it.
  ///
  /// - Parameters:
  ///   - fileID: The file ID of the place where a call outside a presented child's effect is
  ///     reported; the caller's by default.
  ///   - filePath: The file path of that place; the caller's by default.
  ///   - line: The line of that place; the caller's by default.
  ///   - column: The column of that place; the caller's by default.
  ///
  /// ```swift
  /// return .run { _ in await dismiss() }
  /// ```
  public func callAsFunction(
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    if let override {
      await override()
      return
    }
    guard let target = DismissTarget.currentLocal.get() else {
      reportIssue(
        """
        A reducer requested dismissal at "\(fileID):\(line)", but couldn't be dismissed. …

          "dismiss()" was called outside an effect of a presented feature, so there is \
        nothing to dismiss. Call it in an effect (".run") of a child run by "ifLet" on a \
        "PresentationState", or of an element of a "StackState".
        """,
        fileID: fileID, filePath: filePath, line: line, column: column
      )
      return
    }
    if target.isRootFeatureOnly && CancelScope.currentLocal.get() != nil {
      // A child that the root feature runs without a presentation: it has nothing of its own
      // to dismiss, and it is not the root feature, so the test store goes on. No report: TCA's
      // test store accepts this call without a failure (`testDismissWithoutPresentationTools`).
      return
    }
    await target.dismiss()
  }
}

extension DismissEffect: DependencyKey {
  /// The dismissal of the presented child around the calling effect.
  public static let liveValue = DismissEffect()
  /// The same as the live value: it sends an action to the store under test, which the test
  /// receives; in an effect of the test store's root feature (not of the children it runs
  /// without a presentation), it dismisses the test store.
  public static let testValue = DismissEffect()
}

extension DependencyValues {
  /// Dismisses the presented feature whose effect calls it (see ``DismissEffect``).
  ///
  /// ```swift
  /// @Dependency(\.dismiss) var dismiss
  /// ```
  public var dismiss: DismissEffect {
    get { self[DismissEffect.self] }
    set { self[DismissEffect.self] = newValue }
  }
}

/// How the effects of a presented child dismiss it: bound in the child's `.run` effects by the
/// operator that presents it (``Effect/scopedToChild(_:dismiss:action:)``), read by
/// ``DismissEffect``. Child tasks and `Task { … }` inherit it; `Task.detached` does not.
/// `SpoolTesting`'s test store binds one around its root feature's effects, which dismisses the
/// test store (TCA's behaviour) from those effects only (``isRootFeatureOnly``); a presented
/// child's binding overrides it in the child's effects.
package final class DismissTarget: Sendable {
  /// The target bound in the current task; `nil` outside a presented child's effect.
  package static let currentLocal = TaskLocal<DismissTarget?>(wrappedValue: nil)

  /// Sends the parent's dismissing action through the effect's `Send` (so nothing is sent
  /// once the effect is cancelled).
  let dismiss: @Sendable () async -> Void

  /// Whether only the effects of the feature it was bound around dismiss through it, not those
  /// of the children that feature runs without a presentation. A child's `.run` effects run
  /// inside a ``CancelScope``, which is how ``DismissEffect`` tells them apart; a presentation
  /// between them binds its own target, which takes precedence.
  let isRootFeatureOnly: Bool

  /// Creates a target.
  ///
  /// - Parameters:
  ///   - rootFeatureOnly: Whether children run without a presentation (`ifLet` on a plain
  ///     optional, `ifCaseLet`, `forEach` on an identified array) are left out: their
  ///     `dismiss()` does nothing. The test store's dismissal of its root feature sets it.
  ///   - dismiss: What a dismissal does.
  package init(
    rootFeatureOnly: Bool = false, dismiss: @escaping @Sendable () async -> Void
  ) {
    self.isRootFeatureOnly = rootFeatureOnly
    self.dismiss = dismiss
  }
}

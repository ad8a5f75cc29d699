import Dependencies

extension DependencyValues {
  /// Whether the feature that reads it runs as a presented child: TCA's
  /// `@Dependency(\.isPresented)`.
  ///
  /// `true` in the reduce and in the effects of a child run by `ifLet(_:action:destination:)`
  /// on a ``PresentationState``, or of an element of a stack run by
  /// ``Reducer/forEach(_:action:destination:fileID:filePath:line:column:)``, and of every child
  /// those run in turn; `false` everywhere else: in a store's root feature (also under a
  /// `TestStore`), and in a child run without a presentation (`Scope`, `ifLet` on a plain
  /// optional, `ifCaseLet`, `forEach` on an `IdentifiedArray`). So `true` says that
  /// ``DismissEffect`` (`@Dependency(\.dismiss)`) called in the feature's effects dismisses it.
  ///
  /// It is also `true` where a test put a dismissal of its own in place
  /// (`$0.dismiss = DismissEffect { … }`), as in TCA, so that a child tested without its
  /// parent runs as presented. It is read-only, as in TCA: the presentation operators set it,
  /// around each reduce of the child, and the effects the child returns keep the value they
  /// were created with, as they keep every dependency.
  ///
  /// Cost: each action of a presented child or stack element reduces inside a
  /// `withDependencies` (a copy of the dependency values with this one set, and a task-local
  /// binding), as in TCA.
  ///
  /// ```swift
  /// struct Editor: Reducer {
  ///   @Dependency(\.isPresented) var isPresented
  ///   @Dependency(\.dismiss) var dismiss
  ///   // …
  ///   case .closeTapped:
  ///     // An editor that nobody presented has nothing to close.
  ///     guard isPresented else { return .none }
  ///     return .run { _ in await dismiss() }
  /// }
  /// ```
  public var isPresented: Bool {
    self[PresentedKey.self] || self[DismissEffect.self].override != nil
  }

  /// Runs `body`, a presented child's reduce, with ``isPresented`` set: the effects it creates
  /// keep the value.
  @usableFromInline
  static func presenting<Result>(_ body: () -> Result) -> Result {
    withDependencies {
      $0[PresentedKey.self] = true
    } operation: {
      body()
    }
  }
}

/// Whether a presentation operator runs the current reduce (see
/// `DependencyValues.isPresented`); `false` unless one sets it.
private enum PresentedKey: DependencyKey {
  static let liveValue = false
  static let testValue = false
}

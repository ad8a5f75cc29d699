import Dependencies

extension Reducer {
  /// Overrides a dependency for this reducer and the effects it returns.
  ///
  /// - Parameters:
  ///   - keyPath: The dependency to override.
  ///   - value: Its value for this reducer.
  ///
  /// ```swift
  /// Scope(state: \.preview, action: \.preview) {
  ///   Preview()
  ///     .dependency(\.continuousClock, ImmediateClock())
  /// }
  /// ```
  public func dependency<Value: Sendable>(
    _ keyPath: WritableKeyPath<DependencyValues, Value> & Sendable,
    _ value: Value
  ) -> _DependencyKeyWritingReducer<Self> {
    _DependencyKeyWritingReducer(base: self) { $0[keyPath: keyPath] = value }
  }

  /// Changes dependencies for this reducer and the effects it returns.
  ///
  /// ```swift
  /// Feature()
  ///   .transformDependency(\.self) { $0.date = .constant(.distantPast) }
  /// ```
  public func transformDependency<Value: Sendable>(
    _ keyPath: WritableKeyPath<DependencyValues, Value> & Sendable,
    transform: @escaping @Sendable (inout Value) -> Void
  ) -> _DependencyKeyWritingReducer<Self> {
    _DependencyKeyWritingReducer(base: self) { transform(&$0[keyPath: keyPath]) }
  }
}

/// The reducer that ``Reducer/dependency(_:_:)`` returns.
///
/// Overrides chained on it fuse into it, as in TCA: `Feature().dependency(…).dependency(…)` is
/// one `_DependencyKeyWritingReducer<Feature>`, which enters `withDependencies` once per
/// action. The override written closest to the reducer wins, as with nested ones.
public struct _DependencyKeyWritingReducer<Base: Reducer>: Reducer {
  let base: Base
  let update: @Sendable (inout DependencyValues) -> Void

  /// Overrides a dependency for this reducer too, in the same `withDependencies` as the
  /// overrides it holds, which are applied after it and so win over it.
  ///
  /// - Parameters:
  ///   - keyPath: The dependency to override.
  ///   - value: Its value for this reducer, unless an override inside sets it.
  ///
  /// ```swift
  /// Feature()
  ///   .dependency(\.continuousClock, ImmediateClock())
  ///   .dependency(\.uuid, .incrementing)  // still a _DependencyKeyWritingReducer<Feature>
  /// ```
  public func dependency<Value: Sendable>(
    _ keyPath: WritableKeyPath<DependencyValues, Value> & Sendable,
    _ value: Value
  ) -> Self {
    let inner = update
    return Self(base: base) { values in
      values[keyPath: keyPath] = value
      inner(&values)
    }
  }

  /// Changes a dependency for this reducer too, in the same `withDependencies` as the changes
  /// it holds, which are applied after it.
  ///
  /// - Parameters:
  ///   - keyPath: The dependency to change.
  ///   - transform: Changes its value, before the changes inside are applied.
  ///
  /// ```swift
  /// Feature()
  ///   .dependency(\.uuid, .incrementing)
  ///   .transformDependency(\.self) { $0.date = .constant(.distantPast) }
  /// ```
  public func transformDependency<Value: Sendable>(
    _ keyPath: WritableKeyPath<DependencyValues, Value> & Sendable,
    transform: @escaping @Sendable (inout Value) -> Void
  ) -> Self {
    let inner = update
    return Self(base: base) { values in
      transform(&values[keyPath: keyPath])
      inner(&values)
    }
  }

  public func reduce(into state: inout Base.State, action: Base.Action) -> Effect<Base.Action> {
    withDependencies(update) {
      base.reduce(into: &state, action: action)
    }
  }
}

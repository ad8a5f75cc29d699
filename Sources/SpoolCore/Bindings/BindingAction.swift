import CustomDump

/// An action that writes one value into a feature's state through a writable key path.
///
/// A feature whose `Action` conforms to ``BindableAction`` receives these through its
/// `binding` case, and ``BindingReducer`` applies them, as in TCA. Spool has no views, so a
/// binding action is a plain state write that any producer can send: a request handler, a
/// command-line argument, a test.
///
/// Two binding actions are equal when they write equal values through the same key path.
///
/// ```swift
/// await store.send(.binding(.set(\.filter, .completed)))
///
/// // In a reducer, after `BindingReducer()` has applied the write:
/// case .binding(\.filter):
///   return .send(.sortCompletedTodos)
/// ```
public struct BindingAction<Root>: Equatable, Sendable {
  /// The key path that the action writes through.
  public let keyPath: PartialKeyPath<Root> & Sendable

  // Invariant: `set` writes `value` through `keyPath`, and `isEqualToValue` compares another
  // action's `value` with this one's; `set(_:_:)` is the only place that builds the three.
  let set: @Sendable (inout Root) -> Void
  let value: any Sendable
  let isEqualToValue: @Sendable (any Sendable) -> Bool

  /// An action that writes `value` through `keyPath`.
  ///
  /// - Parameters:
  ///   - keyPath: Where in the state to write.
  ///   - value: The value to write.
  /// - Returns: The binding action.
  ///
  /// ```swift
  /// let action = BindingAction<Todos.State>.set(\.filter, .active)
  /// ```
  public static func set<Value: Equatable & Sendable>(
    _ keyPath: WritableKeyPath<Root, Value> & Sendable,
    _ value: Value
  ) -> Self {
    Self(
      keyPath: keyPath,
      set: { $0[keyPath: keyPath] = value },
      value: value,
      isEqualToValue: { ($0 as? Value) == value }
    )
  }

  /// Whether `bindingAction` writes through `keyPath`: matches a binding action in a `switch`
  /// by the field it writes.
  ///
  /// ```swift
  /// switch action {
  /// case .binding(\.filter):
  ///   return .send(.sortCompletedTodos)
  /// case .binding:
  ///   return .none
  /// }
  /// ```
  public static func ~= <Value>(
    keyPath: WritableKeyPath<Root, Value>,
    bindingAction: Self
  ) -> Bool {
    keyPath as AnyKeyPath == bindingAction.keyPath as AnyKeyPath
  }

  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.keyPath as AnyKeyPath == rhs.keyPath as AnyKeyPath && lhs.isEqualToValue(rhs.value)
  }
}

extension BindingAction: CustomDumpReflectable {
  /// Dumps as `.set(keyPath, value)`, so that a test store's diff names the field and value.
  public var customDumpMirror: Mirror {
    Mirror(self, children: ["set": (keyPath, value)], displayStyle: .enum)
  }
}

import CasePathsCore

extension BindingAction: CasePathable {
  /// The case paths of a binding action: one per writable field of the state, named as the
  /// field, so that `\.binding.filter` is a case key path to the value a binding action
  /// writes into `filter`, as in TCA.
  ///
  /// The case path extracts the value only from an action that writes through that same key
  /// path, and embeds a value as ``BindingAction/set(_:_:)`` does.
  ///
  /// ```swift
  /// await store.send(\.binding.filter, .completed)
  /// await store.receive(\.binding.isOn, true)
  /// ```
  @dynamicMemberLookup
  public struct AllCasePaths: Sendable {
    /// The case path to the value written through `keyPath`.
    public subscript<Value: Equatable & Sendable>(
      dynamicMember keyPath: WritableKeyPath<Root, Value> & Sendable
    ) -> AnyCasePath<BindingAction, Value> {
      AnyCasePath(
        embed: { .set(keyPath, $0) },
        extract: { action in
          guard action.keyPath as AnyKeyPath == keyPath as AnyKeyPath else { return nil }
          return action.value as? Value
        }
      )
    }
  }

  /// The case paths of a binding action, one per writable field of the state.
  public static var allCasePaths: AllCasePaths { AllCasePaths() }
}

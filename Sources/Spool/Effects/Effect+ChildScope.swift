import ConcurrencyExtras

/// The identity of one presence of a child in its parent's state: the path to it and, for an
/// element of a collection or an `Identifiable` child, its ID.
///
/// The child's effects are registered under it (``Effect/scopedToChild(_:action:)``), so that
/// the operator can cancel them all when the child goes away.
@usableFromInline
struct ChildPresenceID<ID: Hashable & Sendable>: Hashable, Sendable {
  @usableFromInline let path: KeyPathIdentity
  @usableFromInline let id: ID

  @inlinable
  init(path: KeyPathIdentity, id: ID) {
    self.path = path
    self.id = id
  }
}

/// The ID of a child that has no ID of its own: the child at a path is the same child for as
/// long as it is present (an `ifLet` of non-`Identifiable` state, an `ifCaseLet`'s case).
@usableFromInline
struct NoChildID: Hashable, Sendable {
  @inlinable init() {}
}

/// A key path, as part of a cancellation ID: equal key paths (the same path, even written
/// twice) are equal IDs.
@usableFromInline
struct KeyPathIdentity: Hashable, @unchecked Sendable {
  // @unchecked Sendable, justified: a key path is immutable once created; equality and hashing
  // read only its components. (Key path literals are not inferred `Sendable` where the
  // operators receive them.)
  @usableFromInline let keyPath: AnyKeyPath

  @inlinable
  init(_ keyPath: AnyKeyPath) {
    self.keyPath = keyPath
  }
}

extension Effect {
  /// This child effect as its parent runs it: its actions embedded by `transform`, and all of
  /// it registered under `presence`, so that the operator can cancel it when the child goes
  /// away.
  ///
  /// For a child effect that is not ``none`` (the operators check first, so an action whose
  /// child returns `.none` allocates nothing here).
  @usableFromInline
  func scopedToChild<ParentAction: Sendable>(
    _ presence: AnyHashableSendable,
    action transform: @escaping @Sendable (Action) -> ParentAction
  ) -> Effect<ParentAction> {
    let mapped = map(transform)
    switch mapped.operation {
    case .none, .send, .cancel:
      // Nothing of it runs in a task: nothing to register.
      return mapped
    default:
      return Effect<ParentAction>(
        operation: .cancellable(id: presence, cancelInFlight: false, mapped))
    }
  }
}

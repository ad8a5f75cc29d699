import ConcurrencyExtras

/// A cancellation ID used inside a child feature, qualified by the identity of the child that
/// used it.
///
/// `ifLet`, `ifCaseLet` and `forEach` rewrite every ID in their child's effects to one of
/// these (``Effect/scopedToChild(_:action:)``), and `Task.cancel(id:)` and
/// `withTaskCancellation(id:)` qualify theirs the same way inside a child's effect
/// (``CancelScope``). So two rows of a `forEach` that both use `CancelID.download` register
/// under two different IDs, and a row that cancels `CancelID.download` cancels only its own.
/// Nested children nest: a row of a list shown by `ifLet` qualifies its IDs by the row, then
/// by the presented list.
struct ScopedCancelID: Hashable, Sendable {
  /// The identity of the child (a ``ChildPresenceID``).
  let scope: AnyHashableSendable
  /// The ID as the child's code wrote it, or as a nested child's operator qualified it.
  let id: AnyHashableSendable
}

/// The identity of one presence of a child in its parent's state: the path to it and, for an
/// element of a collection or an `Identifiable` child, its ID.
///
/// The child's effects are registered under it (``Effect/scopedToChild(_:action:)``), so that
/// the operator can cancel them all when the child goes away, and it qualifies the IDs the
/// child uses (``ScopedCancelID``).
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

/// The children whose effect is running in the current task, innermost first: bound by the
/// `.run` effects of a child (``Effect/scopedToChild(_:action:)``) so that `Task.cancel(id:)`
/// and `withTaskCancellation(id:)` qualify their IDs as the child's `Effect.cancel(id:)` and
/// `cancellable(id:)` are qualified. ``DismissEffect`` also reads it: bound means the calling
/// effect is a child's, not the root feature's.
final class CancelScope: Sendable {
  /// The scope bound in the current task; `nil` outside a child's effect.
  static let currentLocal = TaskLocal<CancelScope?>(wrappedValue: nil)

  /// The child's identity.
  let scope: AnyHashableSendable
  /// The scope of the child's parent, if the parent is itself a child.
  let outer: CancelScope?

  init(scope: AnyHashableSendable, outer: CancelScope?) {
    self.scope = scope
    self.outer = outer
  }

  /// `id` qualified by the children whose effect runs in the current task; `id` itself outside
  /// a child's effect.
  static func qualified(_ id: AnyHashableSendable) -> AnyHashableSendable {
    var id = id
    var scope = currentLocal.get()
    // Innermost first, as the operators rewrite effect IDs: the row's, then the list's.
    while let current = scope {
      id = AnyHashableSendable(ScopedCancelID(scope: current.scope, id: id))
      scope = current.outer
    }
    return id
  }
}

extension Effect {
  /// This child effect as its parent runs it: its actions embedded by `transform`, its
  /// cancellation IDs qualified by `presence` (``ScopedCancelID``), and all of it registered
  /// under `presence`, so that the operator can cancel it when the child goes away.
  ///
  /// With a `dismiss` action (a presented child, a stack element), the child's `.run` effects
  /// also run with a ``DismissTarget`` that sends it, so that ``DismissEffect`` called in them
  /// dismisses this child: the innermost presentation around the calling effect.
  ///
  /// One walk over the effect, for a child effect that is not ``none`` (the operators check
  /// first, so an action whose child returns `.none` allocates nothing here).
  @usableFromInline
  func scopedToChild<ParentAction: Sendable>(
    _ presence: AnyHashableSendable,
    dismiss: ParentAction? = nil,
    action transform: @escaping @Sendable (Action) -> ParentAction
  ) -> Effect<ParentAction> {
    let scoped = scopedMap(presence, dismiss, transform)
    switch scoped.operation {
    case .none, .send, .cancel:
      // Nothing of it runs in a task: nothing to register.
      return scoped
    default:
      return Effect<ParentAction>(
        operation: .cancellable(id: presence, cancelInFlight: false, scoped))
    }
  }

  private func scopedMap<T: Sendable>(
    _ scope: AnyHashableSendable, _ dismiss: T?, _ transform: @escaping @Sendable (Action) -> T
  ) -> Effect<T> {
    switch operation {
    case .none:
      return .none
    case let .send(action):
      return .send(transform(action))
    case let .run(priority, work):
      return Effect<T>(
        operation: .run(priority) { send in
          let bound = CancelScope(scope: scope, outer: CancelScope.currentLocal.get())
          guard let dismiss else {
            return await CancelScope.currentLocal.withValue(bound) {
              await work(send.map(transform))
            }
          }
          let target = DismissTarget { await send(dismiss) }
          return await CancelScope.currentLocal.withValue(bound) {
            await DismissTarget.currentLocal.withValue(target) {
              await work(send.map(transform))
            }
          }
        }
      )
    case let .merge(effects):
      return Effect<T>(
        operation: .merge(effects.map { $0.scopedMap(scope, dismiss, transform) }))
    case let .concatenate(effects):
      return Effect<T>(
        operation: .concatenate(effects.map { $0.scopedMap(scope, dismiss, transform) }))
    case let .cancellable(id, cancelInFlight, effect):
      return Effect<T>(
        operation: .cancellable(
          id: AnyHashableSendable(ScopedCancelID(scope: scope, id: id)),
          cancelInFlight: cancelInFlight,
          effect.scopedMap(scope, dismiss, transform)
        )
      )
    case let .cancel(id):
      return Effect<T>(
        operation: .cancel(id: AnyHashableSendable(ScopedCancelID(scope: scope, id: id))))
    }
  }
}

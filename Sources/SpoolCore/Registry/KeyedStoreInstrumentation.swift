/// One instrumentation for many stores, each call labeled with the key of the store it comes
/// from (the ID of a ``StoreRegistry``'s store).
///
/// A ``StoreInstrumentation`` does not know which store calls it. Implement this protocol once
/// for all the stores of a registry, and give each store the view that labels its calls:
/// ``instrumentation(for:)``. The methods have the meaning and the threading of
/// ``StoreInstrumentation``'s, with the store's key added.
///
/// ```swift
/// final class CartInstrumentation: KeyedStoreInstrumentation {
///   func actionReduced(
///     _ action: Cart.Action, key: Cart.ID, enqueuedAt: UInt64, startedAt: UInt64,
///     endedAt: UInt64
///   ) { /* record, labeled with key */ }
///   func effectStarted(by action: Cart.Action, key: Cart.ID, at time: UInt64) {}
///   func effectEnded(
///     by action: Cart.Action, key: Cart.ID, startedAt: UInt64, endedAt: UInt64,
///     outcome: EffectOutcome
///   ) {}
/// }
///
/// let shared = CartInstrumentation()
/// let carts = StoreRegistry<Cart.ID, Cart.State, Cart.Action> { id in
///   Store(initialState: Cart.State(id: id), instrumentation: shared.instrumentation(for: id)) {
///     Cart()
///   }
/// }
/// ```
public protocol KeyedStoreInstrumentation<Key, Action>: AnyObject, Sendable {
  /// The key that labels each store's calls.
  associatedtype Key: Sendable
  /// The action type of the stores.
  associatedtype Action: Sendable

  /// ``StoreInstrumentation/actionReduced(_:enqueuedAt:startedAt:endedAt:)`` of the store of
  /// `key`.
  func actionReduced(
    _ action: Action, key: Key, enqueuedAt: UInt64, startedAt: UInt64, endedAt: UInt64)

  /// ``StoreInstrumentation/effectStarted(by:at:)`` of the store of `key`.
  func effectStarted(by action: Action, key: Key, at time: UInt64)

  /// ``StoreInstrumentation/effectEnded(by:startedAt:endedAt:outcome:)`` of the store of
  /// `key`.
  func effectEnded(
    by action: Action, key: Key, startedAt: UInt64, endedAt: UInt64, outcome: EffectOutcome)

  /// ``StoreInstrumentation/timesReduces``, for every store; `true` unless an implementation
  /// says otherwise.
  var timesReduces: Bool { get }

  /// ``StoreInstrumentation/timingSampling``, for every store; every action unless an
  /// implementation says otherwise.
  var timingSampling: TimingSampling { get }

  /// ``StoreInstrumentation/actionCounted(_:)`` of the store of `key`: an action reduced
  /// without being timed, when ``timingSampling`` samples.
  func actionCounted(_ action: Action, key: Key)
}

extension KeyedStoreInstrumentation {
  /// The default: the stores time every reduce.
  public var timesReduces: Bool { true }

  /// The default: the stores time every action.
  public var timingSampling: TimingSampling { .everyAction }

  /// The default: nothing (a store calls it only for an instrumentation that samples).
  public func actionCounted(_ action: Action, key: Key) {}

  /// The instrumentation to give the store of `key`: it forwards every call here, labeled
  /// with `key`.
  ///
  /// - Parameter key: The key of the store.
  /// - Returns: An instrumentation for that one store.
  ///
  /// ```swift
  /// Store(initialState: Cart.State(id: id), instrumentation: shared.instrumentation(for: id)) {
  ///   Cart()
  /// }
  /// ```
  public func instrumentation(for key: Key) -> any StoreInstrumentation<Action> {
    KeyedStoreInstrumentationView(base: self, key: key)
  }
}

/// The instrumentation of one store: a ``KeyedStoreInstrumentation`` and the store's key.
final class KeyedStoreInstrumentationView<Base: KeyedStoreInstrumentation>:
  StoreInstrumentation
{
  let base: Base
  let key: Base.Key
  let timesReduces: Bool
  let timingSampling: TimingSampling

  init(base: Base, key: Base.Key) {
    self.base = base
    self.key = key
    self.timesReduces = base.timesReduces
    self.timingSampling = base.timingSampling
  }

  func actionCounted(_ action: Base.Action) {
    base.actionCounted(action, key: key)
  }

  func actionReduced(
    _ action: Base.Action, enqueuedAt: UInt64, startedAt: UInt64, endedAt: UInt64
  ) {
    base.actionReduced(
      action, key: key, enqueuedAt: enqueuedAt, startedAt: startedAt, endedAt: endedAt)
  }

  func effectStarted(by action: Base.Action, at time: UInt64) {
    base.effectStarted(by: action, key: key, at: time)
  }

  func effectEnded(
    by action: Base.Action, startedAt: UInt64, endedAt: UInt64, outcome: EffectOutcome
  ) {
    base.effectEnded(
      by: action, key: key, startedAt: startedAt, endedAt: endedAt, outcome: outcome)
  }
}

import ConcurrencyExtras
import CustomDump
import CasePathsCore
import IdentifiedCollections
import OrderedCollections

extension Reducer {
  /// Runs a child reducer on the element of an `IdentifiedArray` that a child action names.
  ///
  /// The parent's action case carries an ``IdentifiedAction``: the element's ID and its action
  /// (`.rows(.element(id: id, action: .toggle))`). The child runs first, on that element only,
  /// in O(1) whatever the size of the array. An action for an ID that is not in the array is
  /// reported and ignored.
  ///
  /// An element's effects end with the element, as in TCA: when this reducer removes an
  /// element, every effect that element's reducer started is cancelled (and an effect it
  /// returned for the action that removed it is not started). Cancellation IDs belong to their
  /// element: an ID used inside the element's reducer and effects
  /// (``Effect/cancellable(id:cancelInFlight:)``, ``Effect/cancel(id:)``, `Task.cancel(id:)`,
  /// ``withTaskCancellation(id:cancelInFlight:operation:fileID:filePath:line:column:)``) is
  /// qualified by the element's ID and this key path. So two rows that both restart
  /// `CancelID.download` with `cancelInFlight: true` do not cancel each other, and a row's
  /// `.cancel(id: CancelID.download)` cancels only its own download. IDs the parent uses stay
  /// the parent's; it ends a row's effects by removing the row, or by sending it an action.
  ///
  /// Cost: besides the element's reduce, an action copies the array's `ids` (a retain) before
  /// the parent runs and compares its storage after (no allocation). When the parent changes
  /// which IDs are in the array, the copy makes that change copy the IDs' storage, and the
  /// removed IDs are found in O(n), as in TCA.
  ///
  /// - Parameters:
  ///   - toElementsState: A writable key path to the identified array.
  ///   - toElementAction: A case key path to the identified child action.
  ///   - element: The reducer of one element.
  ///   - fileID: The file ID of the place where an action for an ID that is not in the array
  ///     is reported; the caller's by default.
  ///   - filePath: The file path of that place; the caller's by default.
  ///   - line: The line of that place; the caller's by default.
  ///   - column: The column of that place; the caller's by default.
  ///
  /// ```swift
  /// Reduce { state, action in
  ///   switch action {
  ///   case let .delete(id):
  ///     state.todos.remove(id: id)  // cancels that row's effects
  ///     return .none
  ///   case .todos:
  ///     return .none
  ///   }
  /// }
  /// .forEach(\.todos, action: \.todos) {
  ///   Todo()
  /// }
  /// ```
  @inlinable
  public func forEach<
    ElementState, ElementAction: Sendable, ID: Hashable & Sendable,
    Element: Reducer<ElementState, ElementAction>
  >(
    _ toElementsState: WritableKeyPath<State, IdentifiedArray<ID, ElementState>>,
    action toElementAction: CaseKeyPath<Action, IdentifiedAction<ID, ElementAction>>,
    @ReducerBuilder<ElementState, ElementAction> element: () -> Element,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> _ForEachReducer<Self, ID, Element> {
    _ForEachReducer(
      parent: self,
      element: element(),
      toElementsState: toElementsState,
      toElementAction: AnyCasePath(toElementAction),
      location: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    )
  }
}

/// An action of one element of a collection, with the element's ID.
///
/// ```swift
/// enum Action: Sendable {
///   case todos(IdentifiedActionOf<Todo>)
/// }
/// store.enqueue(.todos(.element(id: todo.id, action: .toggle)))
/// ```
public enum IdentifiedAction<ID: Hashable & Sendable, Action: Sendable>: Sendable {
  /// The action `action` of the element identified by `id`.
  case element(id: ID, action: Action)
}

extension IdentifiedAction: Equatable where Action: Equatable {}
extension IdentifiedAction: Hashable where Action: Hashable {}

/// The identified action of a reducer whose state is `Identifiable`.
public typealias IdentifiedActionOf<R: Reducer> = IdentifiedAction<R.State.ID, R.Action>
where R.State: Identifiable, R.State.ID: Sendable

/// The reducer that ``Reducer/forEach(_:action:element:fileID:filePath:line:column:)`` returns.
public struct _ForEachReducer<Parent: Reducer, ID: Hashable & Sendable, Element: Reducer>: Reducer {
  @usableFromInline let parent: Parent
  @usableFromInline let element: Element
  @usableFromInline
  let toElementsState: WritableKeyPath<Parent.State, IdentifiedArray<ID, Element.State>>
  @usableFromInline
  let toElementAction: AnyCasePath<Parent.Action, IdentifiedAction<ID, Element.Action>>
  @usableFromInline let location: SourceLocation

  @usableFromInline
  init(
    parent: Parent,
    element: Element,
    toElementsState: WritableKeyPath<Parent.State, IdentifiedArray<ID, Element.State>>,
    toElementAction: AnyCasePath<Parent.Action, IdentifiedAction<ID, Element.Action>>,
    location: SourceLocation
  ) {
    self.parent = parent
    self.element = element
    self.toElementsState = toElementsState
    self.toElementAction = toElementAction
    self.location = location
  }

  // Inlinable, so that it is specialized for the concrete reducers where the store is created:
  // generic, a row action spent about a third of its time instantiating metadata.
  //
  // Budget without element effects: one retain and release of the `ids` storage and a
  // 16-byte comparison per action, no allocation, while the parent leaves the IDs alone.
  @inlinable
  public func reduce(
    into state: inout Parent.State, action: Parent.Action
  ) -> Effect<Parent.Action> {
    let (elementEffect, actedID) = reduceElement(into: &state, action: action)
    // Held while the parent runs: a removal then copies the storage, so the identity check
    // below cannot miss a change made in place.
    let idsBefore = state[keyPath: toElementsState].ids
    let parentEffect = parent.reduce(into: &state, action: action)
    if Self.isIdentical(idsBefore, state[keyPath: toElementsState].ids) {
      return elementEffect.merge(with: parentEffect)
    }
    return cancelRemoved(
      idsBefore, in: state, elementEffect: elementEffect, actedID: actedID,
      parentEffect: parentEffect)
  }

  /// Whether two values share their storage bit for bit: for two copies of an `OrderedSet`,
  /// that they are the same set (neither was changed, or it would have copied its storage).
  @inlinable
  static func isIdentical<T>(_ lhs: T, _ rhs: T) -> Bool {
    withUnsafeBytes(of: lhs) { lhs in
      withUnsafeBytes(of: rhs) { rhs in lhs.elementsEqual(rhs) }
    }
  }

  /// The parent may have removed elements: cancels the effects of those it did, and drops the
  /// element's effect if the element that just acted is one of them (the cancellation is
  /// carried out as the store receives the effect, before that effect's tasks would exist).
  @inlinable
  func cancelRemoved(
    _ idsBefore: some Sequence<ID>,
    in state: Parent.State,
    elementEffect: Effect<Parent.Action>,
    actedID: ID?,
    parentEffect: Effect<Parent.Action>
  ) -> Effect<Parent.Action> {
    let elements = state[keyPath: toElementsState]
    var effects: [Effect<Parent.Action>] = []
    var actedWasRemoved = false
    for id in idsBefore where elements.index(id: id) == nil {
      if id == actedID { actedWasRemoved = true }
      effects.append(.cancel(id: presence(of: id)))
    }
    if effects.isEmpty { return elementEffect.merge(with: parentEffect) }
    effects.insert(parentEffect, at: 0)
    if !actedWasRemoved { effects.insert(elementEffect, at: 0) }
    return .merge(effects)
  }

  /// The presence ID of the element `id`: its effects run under it, and its cancellation IDs
  /// are qualified by it.
  @inlinable
  func presence(of id: ID) -> AnyHashableSendable {
    AnyHashableSendable(ChildPresenceID(path: KeyPathIdentity(toElementsState), id: id))
  }

  /// Runs the element reducer for an element action; returns its effect, and the element's ID
  /// when the action was an element's.
  @inlinable
  func reduceElement(
    into state: inout Parent.State, action: Parent.Action
  ) -> (Effect<Parent.Action>, ID?) {
    guard case let .element(id, elementAction)? = toElementAction.extract(from: action) else {
      return (.none, nil)
    }
    // One hash lookup: the element is then changed in place through its position.
    guard let index = state[keyPath: toElementsState].index(id: id) else {
      reportMissingElement(action)
      return (.none, id)
    }
    let effect = element.reduce(
      into: &state[keyPath: toElementsState][index], action: elementAction
    )
    if effect.isNone { return (.none, id) }
    let toElementAction = self.toElementAction
    let scoped = effect.scopedToChild(presence(of: id)) {
      toElementAction.embed(.element(id: id, action: $0))
    }
    return (scoped, id)
  }

  @usableFromInline
  func reportMissingElement(_ action: Parent.Action) {
    StoreIssueContext.misuse(action).bound {
      location.report(
        """
        A "forEach" at "\(location.fileID):\(location.line)" received an action for a missing \
        element. …

          Action: \(String(customDumping: action))
          Element reducer: \(Element.self)

        The action was ignored: no element of the collection has its ID. Make sure the \
        element is in the collection before sending it actions.
        """
      )
    }
  }
}

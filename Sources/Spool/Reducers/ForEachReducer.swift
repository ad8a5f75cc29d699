import CustomDump
import CasePaths
import IdentifiedCollections

extension Reducer {
  /// Runs a child reducer on the element of an `IdentifiedArray` that a child action names.
  ///
  /// The parent's action case carries an ``IdentifiedAction``: the element's ID and its action
  /// (`.rows(.element(id: id, action: .toggle))`). The child runs first, on that element only,
  /// in O(1) whatever the size of the array. An action for an ID that is not in the array is
  /// reported and ignored. The child's effects are not cancelled when its element is removed:
  /// give them a cancellation ID derived from the element's ID and cancel it when removing.
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
  /// Reduce { state, action in … }
  ///   .forEach(\.todos, action: \.todos) {
  ///     Todo()
  ///   }
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
@CasePathable
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
  @inlinable
  public func reduce(
    into state: inout Parent.State, action: Parent.Action
  ) -> Effect<Parent.Action> {
    let elementEffect = reduceElement(into: &state, action: action)
    let parentEffect = parent.reduce(into: &state, action: action)
    return elementEffect.merge(with: parentEffect)
  }

  @inlinable
  func reduceElement(
    into state: inout Parent.State, action: Parent.Action
  ) -> Effect<Parent.Action> {
    guard case let .element(id, elementAction)? = toElementAction.extract(from: action) else {
      return .none
    }
    // One hash lookup: the element is then changed in place through its position.
    guard let index = state[keyPath: toElementsState].index(id: id) else {
      reportMissingElement(action)
      return .none
    }
    let effect = element.reduce(
      into: &state[keyPath: toElementsState][index], action: elementAction
    )
    if effect.isNone { return .none }
    let toElementAction = self.toElementAction
    return effect.map { toElementAction.embed(.element(id: id, action: $0)) }
  }

  @usableFromInline
  func reportMissingElement(_ action: Parent.Action) {
    location.report(
      """
      A "forEach" at "\(location.fileID):\(location.line)" received an action for an \
      element that is not in the collection:

        Action: \(String(customDumping: action))
        Element reducer: \(Element.self)

      The action was ignored. Make sure elements' effects are cancelled when the elements \
      are removed.
      """
    )
  }
}

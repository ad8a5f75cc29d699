import CasePathsCore

/// An action of a navigation stack: an element's action, a pop, or a push.
///
/// The parent's action has a case holding it, and
/// ``Reducer/forEach(_:action:destination:fileID:filePath:line:column:)`` carries it out.
/// Case key paths reach one element's actions through `[id:]`: `\.path[id: 0].saveTapped`.
///
/// ```swift
/// @CasePathable
/// enum Action: Sendable {
///   case path(StackActionOf<Step>)
/// }
/// await store.send(.path(.push(id: 0, state: Step.State())))
/// await store.send(.path(.element(id: 0, action: .nextTapped)))
/// await store.send(.path(.popFrom(id: 0)))
/// ```
public enum StackAction<State, Action: Sendable> {
  /// The action `action` of the element with the ID `id`.
  indirect case element(id: StackElementID, action: Action)
  /// Pops the element with the ID `id` and every element above it; their effects are
  /// cancelled. Sent by ``DismissEffect`` from an element's effect.
  case popFrom(id: StackElementID)
  /// Pushes `state` with the ID `id`, which must not be in the stack; later appends number
  /// after it.
  indirect case push(id: StackElementID, state: State)
}

extension StackAction: Sendable where State: Sendable {}
extension StackAction: Equatable where State: Equatable, Action: Equatable {}
extension StackAction: Hashable where State: Hashable, Action: Hashable {}

/// The stack action of a reducer's elements.
///
/// ```swift
/// case path(StackActionOf<Step>)
/// ```
public typealias StackActionOf<R: Reducer> = StackAction<R.State, R.Action>

extension Case {
  /// The case of the action of the stack element with the ID `id`: `\.path[id: 0].save` is
  /// the case key path of `.path(.element(id: 0, action: .save))`.
  ///
  /// - Parameter id: The element's ID.
  /// - Returns: The case of that element's action.
  ///
  /// ```swift
  /// await store.receive(\.path[id: 0].finished) { $0.path[id: 0]?.isDone = true }
  /// ```
  public subscript<ElementState, ElementAction>(
    id id: StackElementID
  ) -> Case<ElementAction> where Value == StackAction<ElementState, ElementAction> {
    Case<ElementAction>(
      embed: { self._embed(.element(id: id, action: $0)) },
      extract: { (root: Any) -> ElementAction? in
        guard case let .element(elementID, action)? = self._extract(from: root),
          elementID == id
        else { return nil }
        return action
      }
    )
  }
}

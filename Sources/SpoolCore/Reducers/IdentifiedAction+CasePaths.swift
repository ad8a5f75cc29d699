import CasePathsCore

extension Case {
  /// The case of the action of the element identified by `id`, for case key paths that go
  /// through a ``IdentifiedAction``.
  ///
  /// With it, a case key path names one element's action in a single expression, as TCA's do:
  /// `\.rows[id: 1].toggle` is the case key path of `.rows(.element(id: 1, action: .toggle))`.
  /// Extracting through it yields the element's action only when the ID is `id`; embedding
  /// wraps the element's action with `id`.
  ///
  /// - Parameter id: The ID of the element.
  /// - Returns: The case of that element's action.
  ///
  /// ```swift
  /// @CasePathable
  /// enum Action {
  ///   case rows(IdentifiedActionOf<Row>)
  /// }
  /// let toggleRow1: CaseKeyPath<Action, Void> = \.rows[id: 1].toggle
  /// await store.send(\.rows[id: 1].toggle) { $0.rows[id: 1]?.isDone = true }
  /// ```
  public subscript<ID, ElementAction>(id id: ID) -> Case<ElementAction>
  where Value == IdentifiedAction<ID, ElementAction> {
    Case<ElementAction>(
      embed: { self._embed(.element(id: id, action: $0)) },
      extract: { (root: Any) -> ElementAction? in
        guard case let .element(actionID, action)? = self._extract(from: root), actionID == id
        else { return nil }
        return action
      }
    )
  }
}

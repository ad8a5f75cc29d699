import ConcurrencyExtras
import CasePathsCore
import CustomDump
import Dependencies
import OrderedCollections

extension Reducer {
  /// Runs the features of a navigation stack: TCA's `forEach` for a ``StackState`` and a
  /// ``StackAction``.
  ///
  /// - ``StackAction/element(id:action:)`` runs the element's reducer on that element, before
  ///   this reducer. One for an ID that is not in the stack is reported and ignored.
  /// - ``StackAction/push(id:state:)`` pushes the state, then runs this reducer (which sees it
  ///   pushed). An ID the stack has already used is reported and the push ignored.
  /// - ``StackAction/popFrom(id:)`` runs this reducer (which still sees the elements), then
  ///   pops the element and those above it. One for an ID no longer in the stack does
  ///   nothing: a pop may be queued behind another.
  /// - ``DismissEffect`` (`@Dependency(\.dismiss)`) in an element's effects sends
  ///   `.popFrom(id:)` for that element; `@Dependency(\.isPresented)` is `true` in the
  ///   element's reduce and effects.
  ///
  /// An element's effects end with it, as with ``IdentifiedAction``'s `forEach`: when it
  /// leaves the stack (popped by an action, or removed by this reducer), every effect it
  /// started is cancelled. An element that another reducer removed (one combined beside this
  /// one) has its effects cancelled at the next action this reducer runs, as in TCA. Its
  /// cancellation IDs are qualified by its ``StackElementID``, so two elements of the same
  /// feature that both use `CancelID.load` do not cancel each other.
  ///
  /// Cost: besides the element's reduce (inside a `withDependencies` that sets `isPresented`,
  /// as in TCA), an action copies the IDs the stack held when this reducer last ran (a retain)
  /// and compares their storage with the stack's IDs after it runs.
  ///
  /// - Parameters:
  ///   - toStackState: A writable key path to the stack's state.
  ///   - toStackAction: A case key path to the stack's action.
  ///   - destination: The reducer of one element.
  ///   - fileID: The file ID of the place where misuse (an unknown ID, a reused ID) is
  ///     reported; the caller's by default.
  ///   - filePath: The file path of that place; the caller's by default.
  ///   - line: The line of that place; the caller's by default.
  ///   - column: The column of that place; the caller's by default.
  ///
  /// ```swift
  /// Reduce { state, action in
  ///   switch action {
  ///   case .startTapped:
  ///     state.path.append(Step.State())
  ///     return .none
  ///   case .path(.element(id: _, action: .finishTapped)):
  ///     state.path.removeAll()  // cancels every step's effects
  ///     return .none
  ///   case .startTapped, .path:
  ///     return .none
  ///   }
  /// }
  /// .forEach(\.path, action: \.path) {
  ///   Step()
  /// }
  /// ```
  @inlinable
  public func forEach<
    ElementState, ElementAction: Sendable, Element: Reducer<ElementState, ElementAction>
  >(
    _ toStackState: WritableKeyPath<State, StackState<ElementState>>,
    action toStackAction: CaseKeyPath<Action, StackAction<ElementState, ElementAction>>,
    @ReducerBuilder<ElementState, ElementAction> destination: () -> Element,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> _StackReducer<Self, Element> {
    _StackReducer(
      parent: self,
      element: destination(),
      toStackState: toStackState,
      toStackAction: AnyCasePath(toStackAction),
      location: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    )
  }
}

/// The reducer that the stack `forEach(_:action:destination:)` returns.
public struct _StackReducer<Parent: Reducer, Element: Reducer>: Reducer {
  @usableFromInline let parent: Parent
  @usableFromInline let element: Element
  @usableFromInline
  let toStackState: WritableKeyPath<Parent.State, StackState<Element.State>>
  @usableFromInline
  let toStackAction: AnyCasePath<Parent.Action, StackAction<Element.State, Element.Action>>
  @usableFromInline let location: SourceLocation

  @usableFromInline
  init(
    parent: Parent,
    element: Element,
    toStackState: WritableKeyPath<Parent.State, StackState<Element.State>>,
    toStackAction: AnyCasePath<Parent.Action, StackAction<Element.State, Element.Action>>,
    location: SourceLocation
  ) {
    self.parent = parent
    self.element = element
    self.toStackState = toStackState
    self.toStackAction = toStackAction
    self.location = location
  }

  @inlinable
  public func reduce(
    into state: inout Parent.State, action: Parent.Action
  ) -> Effect<Parent.Action> {
    let stackAction = toStackAction.extract(from: action)
    // The elements whose effects may be running: those the stack held when this reducer last
    // ran. A reducer outside this one (a sibling that runs before it, or after it in the last
    // action) may have removed some since, and their effects must end all the same. Holding
    // this copy (the stack holds one too) makes a removal copy the IDs' storage, so the
    // identity check below cannot miss a change made in place.
    let idsBefore = state[keyPath: toStackState].mounted
    var elementEffect = Effect<Parent.Action>.none
    var actedID: StackElementID?
    switch stackAction {
    case let .element(id, elementAction)?:
      actedID = id
      elementEffect = reduceElement(id: id, action: elementAction, into: &state, action)
    case let .push(id, elementState)?:
      push(id: id, elementState, into: &state, action)
    case .popFrom?, nil:
      break
    }
    let parentEffect = parent.reduce(into: &state, action: action)
    if case let .popFrom(id)? = stackAction {
      state[keyPath: toStackState].pop(from: id)
    }
    let idsAfter = state[keyPath: toStackState].ids
    if _ForEachReducer<Parent, StackElementID, Element>.isIdentical(idsBefore, idsAfter) {
      return elementEffect.merge(with: parentEffect)
    }
    state[keyPath: toStackState].mounted = idsAfter
    // Elements left the stack: cancel their effects. The effect of an element that acted and
    // left in the same action is dropped rather than started (its cancellation, carried out
    // as the store receives the effect, would come before its tasks exist).
    var effects: [Effect<Parent.Action>] = [parentEffect]
    for id in idsBefore where !idsAfter.contains(id) {
      effects.append(.cancel(id: presence(of: id)))
    }
    let actedWasRemoved = actedID.map { !idsAfter.contains($0) } ?? false
    if effects.count == 1 && !actedWasRemoved { return elementEffect.merge(with: parentEffect) }
    if !actedWasRemoved { effects.insert(elementEffect, at: 0) }
    return .merge(effects)
  }

  /// The presence ID of the element `id`: its effects run under it, and its cancellation IDs
  /// are qualified by it.
  @inlinable
  func presence(of id: StackElementID) -> AnyHashableSendable {
    AnyHashableSendable(ChildPresenceID(path: KeyPathIdentity(toStackState), id: id))
  }

  /// Runs the element's reducer in place; returns its effect, scoped to the element.
  @inlinable
  func reduceElement(
    id: StackElementID,
    action elementAction: Element.Action,
    into state: inout Parent.State,
    _ action: Parent.Action
  ) -> Effect<Parent.Action> {
    guard let index = state[keyPath: toStackState].elements.index(forKey: id) else {
      report(action, "an action for a missing element")
      return .none
    }
    // Presented: `isPresented` holds in the element's reduce and in the effects it creates.
    let effect = DependencyValues.presenting {
      element.reduce(
        into: &state[keyPath: toStackState].elements.values[index], action: elementAction)
    }
    if effect.isNone { return .none }
    let toStackAction = self.toStackAction
    return effect.scopedToChild(
      presence(of: id), dismiss: toStackAction.embed(.popFrom(id: id))
    ) {
      toStackAction.embed(.element(id: id, action: $0))
    }
  }

  /// Pushes `elementState` with the ID `id`, unless the stack has used that ID already.
  @inlinable
  func push(
    id: StackElementID,
    _ elementState: Element.State,
    into state: inout Parent.State,
    _ action: Parent.Action
  ) {
    let next = state[keyPath: toStackState].nextGeneration
    guard id.generation >= next else {
      let problem =
        state[keyPath: toStackState][id: id] != nil
        ? "a \"push\" action for an element it already contains"
        : "a \"push\" action with an unexpected generational ID"
      report(action, problem, "The next free ID is \(StackElementID(generation: next)).")
      return
    }
    state[keyPath: toStackState][id: id] = elementState
  }

  /// Reports `action`, which the stack ignored; `problem` completes "received …" and opens
  /// with TCA's words for the same situation, which matchers of its messages look for.
  @usableFromInline
  func report(_ action: Parent.Action, _ problem: String, _ detail: String = "") {
    StoreIssueContext.misuse(action).bound {
      location.report(
        """
        A "forEach" at "\(location.fileID):\(location.line)" received \(problem). …

          Action: \(String(customDumping: action))
          Element reducer: \(Element.self)

        The action was ignored.\(detail.isEmpty ? "" : " \(detail)")
        """
      )
    }
  }
}

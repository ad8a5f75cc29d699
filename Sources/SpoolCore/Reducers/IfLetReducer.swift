import ConcurrencyExtras
import CustomDump
import CasePathsCore
import IssueReporting

extension Reducer {
  /// Runs a child reducer on optional child state, while it is present.
  ///
  /// The child runs before this reducer, so that it sees its state before the parent can set
  /// it to `nil` (for example on a "dismiss" action). A child action that arrives while the
  /// child state is `nil` is reported, naming the action and the reducer, and ignored.
  ///
  /// The child's effects end with its state, as in TCA: when this reducer sets the child
  /// state to `nil`, every effect the child started is cancelled (and an effect the child
  /// returned for the action that dismissed it is not started). When the child state is
  /// `Identifiable`, replacing it with a child of another ID cancels the old child's effects
  /// too; otherwise the child at this path stays the same child until it is `nil`.
  ///
  /// Cancellation IDs belong to the child: an ID the child uses in
  /// ``Effect/cancellable(id:cancelInFlight:)``, ``Effect/cancel(id:)``, `Task.cancel(id:)` or
  /// ``withTaskCancellation(id:cancelInFlight:operation:fileID:filePath:line:column:)`` is
  /// qualified by the child's identity (this key path and, for an `Identifiable` child, its
  /// ID), so it never meets the same ID used by the parent or by another child.
  ///
  /// Cost: an action costs two reads of the optional child state (before and after the parent
  /// runs), plus the child's own reduce when it is a child action; nothing is allocated unless
  /// the child returns an effect or is dismissed.
  ///
  /// - Parameters:
  ///   - toChildState: A writable key path to the optional child state.
  ///   - toChildAction: A case key path to the child action.
  ///   - child: The child reducer.
  ///   - fileID: The file ID of the place where a child action that finds no child state is
  ///     reported; the caller's by default.
  ///   - filePath: The file path of that place; the caller's by default.
  ///   - line: The line of that place; the caller's by default.
  ///   - column: The column of that place; the caller's by default.
  ///
  /// ```swift
  /// Reduce { state, action in
  ///   switch action {
  ///   case .closeTapped:
  ///     state.download = nil  // cancels the download's effects
  ///     return .none
  ///   case .download:
  ///     return .none
  ///   }
  /// }
  /// .ifLet(\.download, action: \.download) {
  ///   Download()
  /// }
  /// ```
  @inlinable
  public func ifLet<ChildState, ChildAction: Sendable, Child: Reducer<ChildState, ChildAction>>(
    _ toChildState: WritableKeyPath<State, ChildState?>,
    action toChildAction: CaseKeyPath<Action, ChildAction>,
    @ReducerBuilder<ChildState, ChildAction> then child: () -> Child,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> _IfLetReducer<Self, Child> {
    ifLet(
      toChildState, toChildAction, child(),
      childID: { $0[keyPath: toChildState] == nil ? nil : NoChildID() },
      location: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// Runs a child reducer on optional `Identifiable` child state, while it is present; a child
  /// of another ID is another child.
  ///
  /// As the `ifLet` for any optional child state, except that replacing the child state with
  /// a child of another ID cancels the effects of the one replaced, and cancellation IDs are
  /// qualified by the child's ID as well as by the key path.
  ///
  /// ```swift
  /// .ifLet(\.editor, action: \.editor) {
  ///   Editor()  // Editor.State: Identifiable
  /// }
  /// ```
  @inlinable
  public func ifLet<ChildState, ChildAction: Sendable, Child: Reducer<ChildState, ChildAction>>(
    _ toChildState: WritableKeyPath<State, ChildState?>,
    action toChildAction: CaseKeyPath<Action, ChildAction>,
    @ReducerBuilder<ChildState, ChildAction> then child: () -> Child,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> _IfLetReducer<Self, Child> where ChildState: Identifiable, ChildState.ID: Sendable {
    ifLet(
      toChildState, toChildAction, child(), childID: { $0[keyPath: toChildState]?.id },
      location: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// The reducer both `ifLet`s return; they differ in what identifies the child.
  @inlinable
  func ifLet<ChildState, ChildAction, Child: Reducer<ChildState, ChildAction>, ChildID>(
    _ toChildState: WritableKeyPath<State, ChildState?>,
    _ toChildAction: CaseKeyPath<Action, ChildAction>,
    _ child: Child,
    childID: @escaping (State) -> ChildID?,
    location: SourceLocation
  ) -> _IfLetReducer<Self, Child> where ChildID: Hashable & Sendable {
    _IfLetReducer(
      parent: self,
      child: child,
      modifyChild: Self.modifyOptionalChild(toChildState),
      childID: childID,
      path: KeyPathIdentity(toChildState),
      toChildAction: AnyCasePath(toChildAction),
      operatorName: "ifLet",
      missingState: "a child action when child state was \"nil\"",
      location: location
    )
  }

  /// Runs a closure on the optional child state in place, if it is present.
  @inlinable
  static func modifyOptionalChild<ChildState, ChildAction>(
    _ toChildState: WritableKeyPath<State, ChildState?>
  ) -> (inout State, (inout ChildState) -> Effect<ChildAction>) -> Effect<ChildAction>? {
    { state, body in
      // In place: a copy of the child's state would make its storage non-unique, and the
      // child's first change would then copy its collections.
      guard state[keyPath: toChildState] != nil else { return nil }
      return body(&state[keyPath: toChildState]!)
    }
  }
}

/// The reducer that ``Reducer/ifLet(_:action:then:fileID:filePath:line:column:)`` returns.
public typealias _IfLetReducer<Parent: Reducer, Child: Reducer> =
  _PresentChildReducer<Parent, Child>

/// Runs a child reducer while its state is present in the parent's, then the parent: what
/// ``Reducer/ifLet(_:action:then:fileID:filePath:line:column:)``,
/// ``Reducer/ifCaseLet(_:action:then:fileID:filePath:line:column:)`` and the presentation
/// `ifLet(_:action:destination:)` return.
///
/// It cancels the child's effects when the child goes away: every effect the child returns is
/// registered under the child's presence ID (its path, and its ID when it has one), and
/// when the parent has run, a child that was present before and is absent after (or has
/// another ID) has that ID cancelled. The presentation `ifLet` compares with the child it saw
/// when it last ran, kept in the ``PresentationState``, rather than with the child before the
/// parent ran, so that it also sees a child removed beside it or renamed by itself.
public struct _PresentChildReducer<Parent: Reducer, Child: Reducer>: Reducer {
  /// Runs the given closure on the child's state, in the parent's state; `nil` when the child's
  /// state is absent.
  @usableFromInline
  typealias ModifyChild = (
    inout Parent.State, (inout Child.State) -> Effect<Child.Action>
  ) -> Effect<Child.Action>?

  /// Runs the parent reducer, and says which child went away: `removed` is the presence ID of
  /// a child whose effects must be cancelled (`nil` if none), and `keepsChildEffect` whether
  /// the child that acted in this action (if it returned an effect, the last argument) is
  /// still there to run it.
  ///
  /// A closure, made by the operator where the child's ID type is known, so that the check
  /// compares IDs of their own type and allocates nothing while the child stays.
  @usableFromInline
  typealias ReduceParent = (
    Parent, inout Parent.State, Parent.Action, _ childReturnedEffect: Bool
  ) -> (effect: Effect<Parent.Action>, removed: AnyHashableSendable?, keepsChildEffect: Bool)

  /// Reads and writes the presence ID of the child the operator last saw, kept in the parent's
  /// state (a presentation's ``PresentationState``): with it, the operator also ends the
  /// effects of a child that a reducer beside it removed, or that changed its own ID.
  @usableFromInline
  typealias Mounted = (
    get: (Parent.State) -> AnyHashableSendable?,
    set: (inout Parent.State, AnyHashableSendable?) -> Void
  )

  /// The presence ID of the child present in the state; asked only when the child has just
  /// returned an effect (so it is present).
  @usableFromInline
  typealias Presence = (Parent.State) -> AnyHashableSendable

  @usableFromInline let parent: Parent
  @usableFromInline let child: Child
  @usableFromInline let modifyChild: ModifyChild
  @usableFromInline let reduceParent: ReduceParent
  @usableFromInline let presence: Presence
  @usableFromInline let toChildAction: AnyCasePath<Parent.Action, Child.Action>
  @usableFromInline let operatorName: StaticString
  /// What the operator received, completing "received …" in its report of a child action
  /// without child state; opens with TCA's words for the same situation, which matchers of
  /// its messages look for.
  @usableFromInline let missingState: String
  @usableFromInline let location: SourceLocation
  /// The action that ``DismissEffect`` sends from the child's effects (a presentation's
  /// `.dismiss`); `nil` for an `ifLet` or `ifCaseLet`, whose children cannot dismiss themselves.
  @usableFromInline let dismissAction: Parent.Action?

  @inlinable
  init<ChildID: Hashable & Sendable>(
    parent: Parent,
    child: Child,
    modifyChild: @escaping ModifyChild,
    childID: @escaping (Parent.State) -> ChildID?,
    path: KeyPathIdentity,
    toChildAction: AnyCasePath<Parent.Action, Child.Action>,
    operatorName: StaticString,
    missingState: String,
    location: SourceLocation,
    dismissAction: Parent.Action? = nil,
    mounted: Mounted? = nil
  ) {
    self.dismissAction = dismissAction
    self.parent = parent
    self.child = child
    self.modifyChild = modifyChild
    if let mounted {
      self.reduceParent = Self.reduceParent(childID: childID, path: path, mounted: mounted)
    } else {
      self.reduceParent = { parent, state, action, _ in
        // The child that acted (if any) is the one here now: it keeps its effect unless the
        // parent removes or replaces it.
        let before = childID(state)
        let effect = parent.reduce(into: &state, action: action)
        guard let before, childID(state) != before else { return (effect, nil, true) }
        return (effect, AnyHashableSendable(ChildPresenceID(path: path, id: before)), false)
      }
    }
    self.presence = { state in
      guard let id = childID(state) else {
        preconditionFailure("Internal inconsistency: a child returned an effect while absent")
      }
      return AnyHashableSendable(ChildPresenceID(path: path, id: id))
    }
    self.toChildAction = toChildAction
    self.operatorName = operatorName
    self.missingState = missingState
    self.location = location
  }

  /// The parent's step for an operator that keeps the child it last saw in the state
  /// (`mounted`): the effects of that child end when the state no longer holds it after the
  /// parent ran, whoever removed or replaced it (a reducer combined beside this one, the
  /// parent, or the child itself by changing its ID). A child removed after this operator ran
  /// is seen at its next action, as in TCA.
  @inlinable
  static func reduceParent<ChildID: Hashable & Sendable>(
    childID: @escaping (Parent.State) -> ChildID?,
    path: KeyPathIdentity,
    mounted: Mounted
  ) -> ReduceParent {
    { parent, state, action, childReturnedEffect in
      // The child whose effect this action returned: its identity after its own reduce.
      let acted = childReturnedEffect ? childID(state) : nil
      let effect = parent.reduce(into: &state, action: action)
      let current = childID(state)
      let keepsChildEffect = acted == nil || acted == current
      let seen = mounted.get(state)
      switch (seen, current) {
      case (nil, nil):
        return (effect, nil, keepsChildEffect)
      case let (seen?, current?)
      where (seen.base as? ChildPresenceID<ChildID>)?.id == current:
        return (effect, nil, keepsChildEffect)
      default:
        let presence = current.map { AnyHashableSendable(ChildPresenceID(path: path, id: $0)) }
        mounted.set(&state, presence)
        return (effect, seen, keepsChildEffect)
      }
    }
  }

  @inlinable
  public func reduce(
    into state: inout Parent.State, action: Parent.Action
  ) -> Effect<Parent.Action> {
    let childEffect = reduceChild(into: &state, action: action)
    let (parentEffect, removed, keepsChildEffect) = reduceParent(
      parent, &state, action, !childEffect.isNone)
    // What a child that went away returned for this very action is dropped rather than
    // started (a cancellation, carried out as the store receives the effect, would come before
    // its tasks exist), and its actions would find no child to go to.
    let effect = keepsChildEffect ? childEffect.merge(with: parentEffect) : parentEffect
    guard let removed else { return effect }
    // The child is gone: cancel what it runs.
    return effect.merge(with: .cancel(id: removed))
  }

  @inlinable
  func reduceChild(
    into state: inout Parent.State, action: Parent.Action
  ) -> Effect<Parent.Action> {
    guard let childAction = toChildAction.extract(from: action) else { return .none }
    let child = self.child
    guard
      let effect = modifyChild(&state, { child.reduce(into: &$0, action: childAction) })
    else {
      reportMissingState(action)
      return .none
    }
    if effect.isNone { return .none }
    let toChildAction = self.toChildAction
    return effect.scopedToChild(presence(state), dismiss: dismissAction) {
      toChildAction.embed($0)
    }
  }
  @usableFromInline
  func reportMissingState(_ action: Parent.Action) {
    StoreIssueContext.misuse(action).bound {
      location.report(
        """
        An "\(operatorName)" at "\(location.fileID):\(location.line)" received \
        \(missingState). …

          Action: \(String(customDumping: action))
          Child reducer: \(Child.self)

        The action was ignored. Make sure the child state is present before sending it \
        actions.
        """
      )
    }
  }
}

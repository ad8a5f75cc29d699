import CustomDump
import CasePaths
import IssueReporting

extension Reducer {
  /// Runs a child reducer on optional child state, while it is present.
  ///
  /// The child runs before this reducer, so that it sees its state before the parent can set
  /// it to `nil` (for example on a "dismiss" action). A child action that arrives while the
  /// child state is `nil` is reported, naming the action and the reducer, and ignored. When the
  /// parent sets the child state to `nil`, the child's effects are not cancelled automatically;
  /// give them a cancellation ID and cancel it when dismissing.
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
  /// Reduce { state, action in … }
  ///   .ifLet(\.alert, action: \.alert) {
  ///     Alert()
  ///   }
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
    _IfLetReducer(
      parent: self,
      child: child(),
      modifyChild: { state, body in
        // In place: a copy of the child's state would make its storage non-unique, and the
        // child's first change would then copy its collections.
        guard state[keyPath: toChildState] != nil else { return nil }
        return body(&state[keyPath: toChildState]!)
      },
      toChildAction: AnyCasePath(toChildAction),
      operatorName: "ifLet",
      missingState: "the child state was nil",
      location: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    )
  }
}

/// The reducer that ``Reducer/ifLet(_:action:then:fileID:filePath:line:column:)`` returns.
public typealias _IfLetReducer<Parent: Reducer, Child: Reducer> =
  _PresentChildReducer<Parent, Child>

/// Runs a child reducer while its state is present in the parent's, then the parent: what
/// ``Reducer/ifLet(_:action:then:fileID:filePath:line:column:)`` and
/// ``Reducer/ifCaseLet(_:action:then:fileID:filePath:line:column:)`` return.
public struct _PresentChildReducer<Parent: Reducer, Child: Reducer>: Reducer {
  /// Runs the given closure on the child's state, in the parent's state; `nil` when the child's
  /// state is absent.
  @usableFromInline
  typealias ModifyChild = (
    inout Parent.State, (inout Child.State) -> Effect<Child.Action>
  ) -> Effect<Child.Action>?

  @usableFromInline let parent: Parent
  @usableFromInline let child: Child
  @usableFromInline let modifyChild: ModifyChild
  @usableFromInline let toChildAction: AnyCasePath<Parent.Action, Child.Action>
  @usableFromInline let operatorName: StaticString
  @usableFromInline let missingState: String
  @usableFromInline let location: SourceLocation

  @usableFromInline
  init(
    parent: Parent,
    child: Child,
    modifyChild: @escaping ModifyChild,
    toChildAction: AnyCasePath<Parent.Action, Child.Action>,
    operatorName: StaticString,
    missingState: String,
    location: SourceLocation
  ) {
    self.parent = parent
    self.child = child
    self.modifyChild = modifyChild
    self.toChildAction = toChildAction
    self.operatorName = operatorName
    self.missingState = missingState
    self.location = location
  }

  @inlinable
  public func reduce(
    into state: inout Parent.State, action: Parent.Action
  ) -> Effect<Parent.Action> {
    let childEffect = reduceChild(into: &state, action: action)
    let parentEffect = parent.reduce(into: &state, action: action)
    return childEffect.merge(with: parentEffect)
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
    return effect.map { toChildAction.embed($0) }
  }

  @usableFromInline
  func reportMissingState(_ action: Parent.Action) {
    location.report(
      """
      An "\(operatorName)" at "\(location.fileID):\(location.line)" received a child \
      action when \(missingState):

        Action: \(String(customDumping: action))
        Child reducer: \(Child.self)

      The action was ignored. Make sure the child state is present before sending it \
      actions, and that the child's effects are cancelled when the parent removes it.
      """
    )
  }
}

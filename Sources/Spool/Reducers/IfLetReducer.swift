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
  ///
  /// ```swift
  /// Reduce { state, action in … }
  ///   .ifLet(\.alert, action: \.alert) {
  ///     Alert()
  ///   }
  /// ```
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
      extract: { $0[keyPath: toChildState] },
      embed: { $0[keyPath: toChildState] = $1 },
      toChildAction: AnyCasePath(toChildAction),
      operatorName: "ifLet",
      missingState: "the child state was nil",
      location: OperatorLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    )
  }
}

/// The reducer that ``Reducer/ifLet(_:action:then:fileID:filePath:line:column:)`` returns.
public typealias _IfLetReducer<Parent: Reducer, Child: Reducer> =
  _PresentChildReducer<Parent, Child>

/// Where an operator was applied, for the messages it reports.
struct OperatorLocation: Sendable {
  let fileID: StaticString
  let filePath: StaticString
  let line: UInt
  let column: UInt

  func report(_ message: String) {
    reportIssue(message, fileID: fileID, filePath: filePath, line: line, column: column)
  }
}

/// Runs a child reducer while its state is present in the parent's, then the parent: what
/// ``Reducer/ifLet(_:action:then:fileID:filePath:line:column:)`` and
/// ``Reducer/ifCaseLet(_:action:then:fileID:filePath:line:column:)`` return.
public struct _PresentChildReducer<Parent: Reducer, Child: Reducer>: Reducer {
  let parent: Parent
  let child: Child
  let extract: (Parent.State) -> Child.State?
  let embed: (inout Parent.State, Child.State) -> Void
  let toChildAction: AnyCasePath<Parent.Action, Child.Action>
  let operatorName: StaticString
  let missingState: String
  let location: OperatorLocation

  public func reduce(
    into state: inout Parent.State, action: Parent.Action
  ) -> Effect<Parent.Action> {
    let childEffect = reduceChild(into: &state, action: action)
    let parentEffect = parent.reduce(into: &state, action: action)
    return .merge(childEffect, parentEffect)
  }

  private func reduceChild(
    into state: inout Parent.State, action: Parent.Action
  ) -> Effect<Parent.Action> {
    guard let childAction = toChildAction.extract(from: action) else { return .none }
    guard var childState = extract(state) else {
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
      return .none
    }
    let toChildAction = self.toChildAction
    defer { embed(&state, childState) }
    return child.reduce(into: &childState, action: childAction).map { toChildAction.embed($0) }
  }
}

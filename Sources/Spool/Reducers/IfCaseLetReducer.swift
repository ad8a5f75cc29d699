import CustomDump
import CasePaths

extension Reducer {
  /// Runs a child reducer on one case of enum state, while the state is in that case.
  ///
  /// Like ``ifLet(_:action:then:fileID:filePath:line:column:)``, the child runs first, and a
  /// child action that arrives while the state is in another case is reported and ignored.
  ///
  /// - Parameters:
  ///   - toChildState: A case key path from the enum state to the child state.
  ///   - toChildAction: A case key path to the child action.
  ///   - child: The child reducer.
  ///
  /// ```swift
  /// Reduce { state, action in … }
  ///   .ifCaseLet(\.loggedIn, action: \.loggedIn) {
  ///     Home()
  ///   }
  /// ```
  public func ifCaseLet<
    ChildState, ChildAction: Sendable, Child: Reducer<ChildState, ChildAction>
  >(
    _ toChildState: CaseKeyPath<State, ChildState>,
    action toChildAction: CaseKeyPath<Action, ChildAction>,
    @ReducerBuilder<ChildState, ChildAction> then child: () -> Child,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> _IfCaseLetReducer<Self, Child> where State: CasePathable {
    _IfCaseLetReducer(
      parent: self,
      child: child(),
      toChildState: AnyCasePath(toChildState),
      toChildAction: AnyCasePath(toChildAction),
      location: OperatorLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    )
  }
}

/// The reducer that ``Reducer/ifCaseLet(_:action:then:fileID:filePath:line:column:)`` returns.
public struct _IfCaseLetReducer<Parent: Reducer, Child: Reducer>: Reducer {
  let parent: Parent
  let child: Child
  let toChildState: AnyCasePath<Parent.State, Child.State>
  let toChildAction: AnyCasePath<Parent.Action, Child.Action>
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
    guard var childState = toChildState.extract(from: state) else {
      location.report(
        """
        An "ifCaseLet" at "\(location.fileID):\(location.line)" received a child action \
        when the state was not in the case that holds the state of "\(Child.self)":

          Action: \(String(customDumping: action))
          Child reducer: \(Child.self)

        The action was ignored. Make sure the state is in that case before sending it \
        actions, and that the child's effects are cancelled when the state leaves it.
        """
      )
      return .none
    }
    let toChildAction = self.toChildAction
    defer { state = toChildState.embed(childState) }
    return child.reduce(into: &childState, action: childAction).map { toChildAction.embed($0) }
  }
}

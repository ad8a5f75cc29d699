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
  ///   - fileID: The file ID of the place where a child action that finds the state in
  ///     another case is reported; the caller's by default.
  ///   - filePath: The file path of that place; the caller's by default.
  ///   - line: The line of that place; the caller's by default.
  ///   - column: The column of that place; the caller's by default.
  ///
  /// ```swift
  /// Reduce { state, action in … }
  ///   .ifCaseLet(\.loggedIn, action: \.loggedIn) {
  ///     Home()
  ///   }
  /// ```
  @inlinable
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
    let toChildState = AnyCasePath(toChildState)
    return _IfCaseLetReducer(
      parent: self,
      child: child(),
      modifyChild: { state, body in
        guard var childState = toChildState.extract(from: state) else { return nil }
        defer { state = toChildState.embed(childState) }
        return body(&childState)
      },
      toChildAction: AnyCasePath(toChildAction),
      operatorName: "ifCaseLet",
      missingState: "the state was not in the case that holds the state of \"\(Child.self)\"",
      location: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    )
  }
}

/// The reducer that ``Reducer/ifCaseLet(_:action:then:fileID:filePath:line:column:)`` returns.
public typealias _IfCaseLetReducer<Parent: Reducer, Child: Reducer> =
  _PresentChildReducer<Parent, Child>

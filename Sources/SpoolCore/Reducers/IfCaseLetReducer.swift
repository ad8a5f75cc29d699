import ConcurrencyExtras
import CustomDump
import CasePathsCore

extension Reducer {
  /// Runs a child reducer on one case of enum state, while the state is in that case.
  ///
  /// Like ``Reducer/ifLet(_:action:then:fileID:filePath:line:column:)-9z118``, the child runs
  /// first, and a child action that arrives while the state is in another case is reported and
  /// ignored.
  ///
  /// The child's effects end with its case, as in TCA: when this reducer moves the state to
  /// another case, every effect the child started is cancelled (and an effect the child
  /// returned for the action that moved it is not started). When the child state is
  /// `Identifiable`, a child of another ID in the same case is another child, and the old
  /// one's effects are cancelled too. Cancellation IDs the child uses are qualified by the
  /// case (and the child's ID), as with `ifLet`: they never meet the parent's or another
  /// child's.
  ///
  /// Cost: an action costs two extractions of the case (before and after the parent runs),
  /// plus the child's own reduce when it is a child action; nothing is allocated unless the
  /// child returns an effect or leaves its case.
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
  /// Reduce { state, action in
  ///   switch action {
  ///   case .logOutTapped:
  ///     state = .loggedOut(Login.State())  // cancels Home's effects
  ///     return .none
  ///   case .loggedIn, .loggedOut:
  ///     return .none
  ///   }
  /// }
  /// .ifCaseLet(\.loggedIn, action: \.loggedIn) {
  ///   Home()
  /// }
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
    let casePath = AnyCasePath(toChildState)
    return ifCaseLet(
      casePath, path: KeyPathIdentity(toChildState), toChildAction, child(),
      childID: { casePath.extract(from: $0) == nil ? nil : NoChildID() },
      location: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// Runs a child reducer on one case of enum state holding `Identifiable` child state, while
  /// the state is in that case; a child of another ID is another child.
  ///
  /// As the `ifCaseLet` for any child state, except that replacing the child with one of
  /// another ID in the same case cancels the replaced child's effects, and cancellation IDs
  /// are qualified by the child's ID as well as by the case.
  ///
  /// ```swift
  /// .ifCaseLet(\.editing, action: \.editing) {
  ///   Editor()  // Editor.State: Identifiable
  /// }
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
  ) -> _IfCaseLetReducer<Self, Child>
  where State: CasePathable, ChildState: Identifiable, ChildState.ID: Sendable {
    let casePath = AnyCasePath(toChildState)
    return ifCaseLet(
      casePath, path: KeyPathIdentity(toChildState), toChildAction, child(),
      childID: { casePath.extract(from: $0)?.id },
      location: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// The reducer both `ifCaseLet`s return; they differ in what identifies the child.
  @inlinable
  func ifCaseLet<ChildState, ChildAction, Child: Reducer<ChildState, ChildAction>, ChildID>(
    _ casePath: AnyCasePath<State, ChildState>,
    path: KeyPathIdentity,
    _ toChildAction: CaseKeyPath<Action, ChildAction>,
    _ child: Child,
    childID: @escaping (State) -> ChildID?,
    location: SourceLocation
  ) -> _IfCaseLetReducer<Self, Child> where ChildID: Hashable & Sendable {
    _IfCaseLetReducer(
      parent: self,
      child: child,
      modifyChild: Self.modifyCase(casePath),
      childID: childID,
      path: path,
      toChildAction: AnyCasePath(toChildAction),
      operatorName: "ifCaseLet",
      missingState: "a child action when child state was set to a different case",
      location: location
    )
  }

  /// Runs a closure on the child state of the case, if the state is in it, and embeds the
  /// result back.
  @inlinable
  static func modifyCase<ChildState, ChildAction>(
    _ casePath: AnyCasePath<State, ChildState>
  ) -> (inout State, (inout ChildState) -> Effect<ChildAction>) -> Effect<ChildAction>? {
    { state, body in
      guard var childState = casePath.extract(from: state) else { return nil }
      defer { state = casePath.embed(childState) }
      return body(&childState)
    }
  }
}

/// The reducer that ``Reducer/ifCaseLet(_:action:then:fileID:filePath:line:column:)`` returns.
public typealias _IfCaseLetReducer<Parent: Reducer, Child: Reducer> =
  _PresentChildReducer<Parent, Child>

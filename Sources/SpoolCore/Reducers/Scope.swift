import CustomDump
import CasePathsCore
import IssueReporting

/// Runs a child reducer on a part of the parent's state, for the parent's actions of one case.
///
/// With a key path to the child state, the child always runs on it. With a case key path to the
/// child state (the parent state is an enum), the child runs only while the state is in that
/// case; a child action that arrives when it is not is reported (the state was changed from
/// under the child, usually by a parent reducer placed before the `Scope`) and ignored.
///
/// ```swift
/// var body: some ReducerOf<Self> {
///   Scope(state: \.counter, action: \.counter) {
///     Counter()
///   }
///   Reduce { state, action in .none }
/// }
/// ```
public struct Scope<ParentState, ParentAction: Sendable, Child: Reducer>: Reducer
where Child.Action: Sendable {
  @usableFromInline
  enum StatePath {
    case keyPath(WritableKeyPath<ParentState, Child.State>)
    case casePath(AnyCasePath<ParentState, Child.State>)
  }

  @usableFromInline let toChildState: StatePath
  @usableFromInline let toChildAction: AnyCasePath<ParentAction, Child.Action>
  @usableFromInline let child: Child
  @usableFromInline let fileID: StaticString
  @usableFromInline let filePath: StaticString
  @usableFromInline let line: UInt
  @usableFromInline let column: UInt

  /// Runs `child` on the part of the state at `toChildState`, for actions of `toChildAction`.
  ///
  /// - Parameters:
  ///   - toChildState: A writable key path to the child state.
  ///   - toChildAction: A case key path to the child action.
  ///   - child: The child reducer.
  // Disfavored: on an enum state that is `@CasePathable @dynamicMemberLookup` (as `@Reducer`
  // makes it), `\.case` is also a writable key path through the dynamic member subscript, and
  // the case key path initializer below must win. On a struct state only this one applies.
  @_disfavoredOverload
  @inlinable
  public init<ChildState, ChildAction>(
    state toChildState: WritableKeyPath<ParentState, ChildState>,
    action toChildAction: CaseKeyPath<ParentAction, ChildAction>,
    @ReducerBuilder<ChildState, ChildAction> child: () -> Child
  ) where ChildState == Child.State, ChildAction == Child.Action {
    self.toChildState = .keyPath(toChildState)
    self.toChildAction = AnyCasePath(toChildAction)
    self.child = child()
    self.fileID = #fileID
    self.filePath = #filePath
    self.line = #line
    self.column = #column
  }

  /// Runs `child` while the enum state is in the case at `toChildState`.
  ///
  /// - Parameters:
  ///   - toChildState: A case key path to the child state.
  ///   - toChildAction: A case key path to the child action.
  ///   - child: The child reducer.
  ///   - fileID: The file ID of the place where a child action that finds the state in
  ///     another case is reported; the caller's by default.
  ///   - filePath: The file path of that place; the caller's by default.
  ///   - line: The line of that place; the caller's by default.
  ///   - column: The column of that place; the caller's by default.
  ///
  /// ```swift
  /// Scope(state: \.loggedIn, action: \.loggedIn) { Home() }
  /// ```
  @inlinable
  public init<ChildState, ChildAction>(
    state toChildState: CaseKeyPath<ParentState, ChildState>,
    action toChildAction: CaseKeyPath<ParentAction, ChildAction>,
    @ReducerBuilder<ChildState, ChildAction> child: () -> Child,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) where ChildState == Child.State, ChildAction == Child.Action, ParentState: CasePathable {
    self.toChildState = .casePath(AnyCasePath(toChildState))
    self.toChildAction = AnyCasePath(toChildAction)
    self.child = child()
    self.fileID = fileID
    self.filePath = filePath
    self.line = line
    self.column = column
  }

  @inlinable
  public func reduce(into state: inout ParentState, action: ParentAction) -> Effect<ParentAction> {
    guard let childAction = toChildAction.extract(from: action) else { return .none }
    let effect: Effect<Child.Action>
    switch toChildState {
    case let .keyPath(keyPath):
      effect = child.reduce(into: &state[keyPath: keyPath], action: childAction)
    case let .casePath(casePath):
      guard var childState = casePath.extract(from: state) else {
        reportMissingCase(action: action, state: state)
        return .none
      }
      effect = child.reduce(into: &childState, action: childAction)
      state = casePath.embed(childState)
    }
    if effect.isNone { return .none }
    let toChildAction = self.toChildAction
    return effect.map { toChildAction.embed($0) }
  }

  @usableFromInline
  func reportMissingCase(action: ParentAction, state: ParentState) {
    StoreIssueContext.misuse(action).bound {
      reportIssue(
        """
        A "Scope" at "\(fileID):\(line)" received a child action when child state was set \
        to a different case. …

          Action: \(String(customDumping: action))
          State: \(String(customDumping: state))

        The action was ignored: the state is not in the case that holds the state of \
        "\(Child.self)". This usually means a parent reducer changed the state's \
        case before the "Scope" ran: place the "Scope" before it in the body.
        """,
        fileID: fileID, filePath: filePath, line: line, column: column
      )
    }
  }
}

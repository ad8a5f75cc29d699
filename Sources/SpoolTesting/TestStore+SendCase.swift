import CasePathsCore

extension TestStore where Action: CasePathable {
  /// Sends the action of the payload-free case `actionCase` and asserts how it changes the
  /// state.
  ///
  /// Works like ``send(_:assert:fileID:filePath:line:column:)-(Action,_,_,_,_,_)`` (the same
  /// steps, the same failures), with the action named by a case key path, as TCA's tests write
  /// it. The key path may go through a `forEach`'s `IdentifiedAction` with `[id:]`.
  /// Like every `send` of Spool's test store, it is `async`.
  ///
  /// - Parameters:
  ///   - actionCase: The case key path of the action to send.
  ///   - updateStateToExpectedResult: Changes the state before the action into the state the
  ///     test expects after it; `nil` if the state must not change.
  ///   - fileID: The file ID of the place where this step reports its failures; the
  ///     caller's by default.
  ///   - filePath: The file path of that place; the caller's by default.
  ///   - line: The line of that place; the caller's by default.
  ///   - column: The column of that place; the caller's by default.
  /// - Returns: A handle on the action's effects, to finish or cancel them.
  ///
  /// ```swift
  /// await store.send(\.rows[id: 1].toggle) {
  ///   $0.rows[id: 1]?.isDone = true
  /// }
  /// ```
  @discardableResult
  public nonisolated(nonsending) func send(
    _ actionCase: CaseKeyPath<Action, Void>,
    assert updateStateToExpectedResult: ((_ state: inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async -> TestStoreTask {
    await send(
      actionCase(), assert: updateStateToExpectedResult,
      fileID: fileID, filePath: filePath, line: line, column: column
    )
  }

  /// Sends the action of the case `actionCase` with the payload `value` and asserts how it
  /// changes the state.
  ///
  /// Works like ``send(_:assert:fileID:filePath:line:column:)-(Action,_,_,_,_,_)`` (the same
  /// steps, the same failures), with the action built from a case key path and its payload,
  /// as TCA's tests write it. Like every `send` of Spool's test store, it is `async`.
  ///
  /// - Parameters:
  ///   - actionCase: The case key path of the action to send.
  ///   - value: The payload of the action.
  ///   - updateStateToExpectedResult: Changes the state before the action into the state the
  ///     test expects after it; `nil` if the state must not change.
  ///   - fileID: The file ID of the place where this step reports its failures; the
  ///     caller's by default.
  ///   - filePath: The file path of that place; the caller's by default.
  ///   - line: The line of that place; the caller's by default.
  ///   - column: The column of that place; the caller's by default.
  /// - Returns: A handle on the action's effects, to finish or cancel them.
  ///
  /// ```swift
  /// await store.send(\.queryChanged, "comp") {
  ///   $0.query = "comp"
  /// }
  /// ```
  @discardableResult
  public nonisolated(nonsending) func send<Value>(
    _ actionCase: CaseKeyPath<Action, Value>,
    _ value: Value,
    assert updateStateToExpectedResult: ((_ state: inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async -> TestStoreTask {
    await send(
      actionCase(value), assert: updateStateToExpectedResult,
      fileID: fileID, filePath: filePath, line: line, column: column
    )
  }
}

import Dependencies

extension TestStore {
  /// Asserts what the current state is, without sending an action.
  ///
  /// `updateStateToExpectedResult` changes a copy of ``state`` into the state the test
  /// expects; any difference from the actual state fails the test at the caller's line, with
  /// the diff that a `send` or `receive` closure shows. Fields the closure leaves alone are not
  /// checked, and setting a field to the value it already has passes (nothing need change).
  ///
  /// ```swift
  /// await store.send(.onAppear)
  /// await store.receive(\.itemsLoaded)
  /// store.assert {
  ///   $0.items = ["Milk", "Eggs"]
  ///   $0.isLoading = false
  /// }
  /// ```
  ///
  /// The state is ``state``, the state as of the last asserted step, as in TCA: actions that
  /// effects sent are reflected once a step (`receive`, `skipReceivedActions`, `send`) has
  /// asserted or skipped them. As in TCA, `assert` is synchronous and runs no effect.
  ///
  /// - Parameters:
  ///   - updateStateToExpectedResult: Changes the current state into the state the test
  ///     expects.
  ///   - fileID: The file ID of the place where this assertion reports its failures; the
  ///     caller's by default.
  ///   - filePath: The file path of that place; the caller's by default.
  ///   - line: The line of that place; the caller's by default.
  ///   - column: The column of that place; the caller's by default.
  public func assert(
    _ updateStateToExpectedResult: (_ state: inout State) throws -> Void,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) {
    let location = TestLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    var expected = state
    do {
      try DependencyValues.$_current.withValue(dependencies) {
        try updateStateToExpectedResult(&expected)
      }
    } catch {
      location.fail("Threw error: \(error)")
      return
    }
    if expected != state {
      location.fail(mismatch(expected: expected, actual: state, hasUpdate: true))
    }
  }
}

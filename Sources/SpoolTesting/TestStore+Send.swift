extension TestStore {
  /// Sends `action` and asserts how it changes the state.
  ///
  /// The test store first runs its effects until they can go no further; if they sent actions
  /// the test has not received, an exhaustive test store fails (receive them first, as in TCA)
  /// and keeps them to be received after this action; a non-exhaustive one skips them.
  /// Then it reduces `action`, checks the change against `updateStateToExpectedResult` (a
  /// difference fails with a diff, at the caller's line), starts the action's effects and runs
  /// them until they suspend or end.
  ///
  /// Unlike TCA's, this `send` is `async` in every case, because effects progress only inside the
  /// test store's steps.
  ///
  /// - Parameters:
  ///   - action: The action to send.
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
  /// await store.send(.incrementButtonTapped) {
  ///   $0.count = 1
  /// }
  /// ```
  @discardableResult
  public nonisolated(nonsending) func send(
    _ action: Action,
    assert updateStateToExpectedResult: ((_ state: inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async -> TestStoreTask {
    executor.beginStep()
    defer { executor.endStep() }
    let location = TestLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    await runEffectsUntilIdle(at: location)
    guard !isDismissed else {
      location.fail(
        """
        Can't send action to dismissed test store. …

          Action:
        \(describe(action))

        An effect of the root feature called "dismiss()": the test store cancelled its effects \
        and takes no more actions.
        """
      )
      return TestStoreTask(store: self, effects: [], tasks: [])
    }
    if !receivedActions.isEmpty {
      let message = """
        Must handle \(receivedActions.count) received \
        action\(receivedActions.count == 1 ? "" : "s") before sending an action: …

        Unhandled actions:
        \(receivedActions.map { describe($0.action) }.joined(separator: "\n"))
        """
      switch exhaustivity {
      case .on:
        // As in TCA, the unhandled actions stay to be received: a test that receives them
        // after this send sees one failure, not one more for each `receive` that follows.
        location.fail(message)
      case let .off(showSkippedAssertions):
        if showSkippedAssertions { location.skipped(message) }
        // Skipped actions count as asserted: the sent action starts from the state after them.
        state = reducedState
        receivedActions.removeAll()
      }
    }
    let before = reducedState
    let effect = reduce(action)
    expectState(from: before, to: reducedState, update: updateStateToExpectedResult, at: location)
    state = reducedState
    let started = start(effect, of: action, at: location)
    await runEffectsUntilIdle(at: location)
    return TestStoreTask(store: self, effects: started.ids, tasks: started.tasks)
  }
}

extension TestStore {
  /// Waits for every in-flight effect to end, then asserts that no effect is running and that
  /// every action the effects sent was received.
  ///
  /// Effects that are still running when `timeout` has passed (a timer nobody stopped, a sleep
  /// on a test clock nobody advanced), and actions that were not received, fail the test with a
  /// message that names the action that started each effect, or each unreceived action. The
  /// same check runs when the test store is released, so `finish` is needed only to check
  /// before the end of the test, or at a line of your choosing.
  ///
  /// - Parameters:
  ///   - timeout: How long to wait for effects working off the test store's executor; the
  ///     store's ``timeout`` if `nil`.
  ///   - fileID: The file ID of the place where this step reports its failures; the
  ///     caller's by default.
  ///   - filePath: The file path of that place; the caller's by default.
  ///   - line: The line of that place; the caller's by default.
  ///   - column: The column of that place; the caller's by default.
  ///
  /// ```swift
  /// await store.send(.stopButtonTapped) { $0.isTimerOn = false }
  /// await store.finish()
  /// ```
  public nonisolated(nonsending) func finish(
    timeout: Duration? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    executor.beginStep()
    defer { executor.endStep() }
    let location = TestLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    await runEffects(until: { false }, timeout: timeout ?? self.timeout, at: location)
    reportUnfinishedWork(at: location)
    await cancelEffects(mailbox.inFlight.map(\.id), at: location)
  }

  /// Drops the actions that effects sent and the test has not received.
  ///
  /// - Parameters:
  ///   - strict: Whether to fail when there is no action to skip.
  ///   - fileID: The file ID of the place where this step reports its failures; the
  ///     caller's by default.
  ///   - filePath: The file path of that place; the caller's by default.
  ///   - line: The line of that place; the caller's by default.
  ///   - column: The column of that place; the caller's by default.
  ///
  /// ```swift
  /// await store.send(.onAppear)
  /// await store.skipReceivedActions()
  /// ```
  public nonisolated(nonsending) func skipReceivedActions(
    strict: Bool = true,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    executor.beginStep()
    defer { executor.endStep() }
    let location = TestLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    await runEffectsUntilIdle(at: location)
    guard !receivedActions.isEmpty else {
      if strict { location.fail("There were no received actions to skip.") }
      return
    }
    if case .off(showSkippedAssertions: true) = exhaustivity {
      let count = receivedActions.count
      location.skipped(
        """
        \(count) received action\(count == 1 ? " was" : "s were") skipped:

        \(receivedActions.map { describe($0.action) }.joined(separator: "\n"))
        """
      )
    }
    state = receivedActions[receivedActions.count - 1].stateAfter
    receivedActions.removeAll()
  }

  /// Stops tracking the effects in flight, as TCA does: they are no longer awaited by
  /// ``finish(timeout:fileID:filePath:line:column:)`` nor reported at the end of the test.
  ///
  /// The effects keep running: what they send later is received as usual (and, in an
  /// exhaustive test, must be asserted). The test store cancels them when it is released. To
  /// end an effect now, cancel it: ``TestStoreTask/cancel(fileID:filePath:line:column:)`` or
  /// the feature's own cancelling action.
  ///
  /// - Parameters:
  ///   - strict: Whether to fail when no effect is in flight.
  ///   - fileID: The file ID of the place where this step reports its failures; the
  ///     caller's by default.
  ///   - filePath: The file path of that place; the caller's by default.
  ///   - line: The line of that place; the caller's by default.
  ///   - column: The column of that place; the caller's by default.
  ///
  /// ```swift
  /// await store.send(.onAppear)  // starts a long-living effect
  /// await store.skipInFlightEffects()
  /// ```
  public nonisolated(nonsending) func skipInFlightEffects(
    strict: Bool = true,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    executor.beginStep()
    defer { executor.endStep() }
    let location = TestLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    await runEffectsUntilIdle(at: location)
    let inFlight = mailbox.inFlight
    guard !inFlight.isEmpty else {
      if strict { location.fail("There were no in-flight effects to skip.") }
      return
    }
    if case .off(showSkippedAssertions: true) = exhaustivity {
      let count = inFlight.count
      location.skipped(
        """
        \(count) in-flight effect\(count == 1 ? " was" : "s were") skipped, originating from:

        \(inFlight.map { describe($0.effect.origin) }.joined(separator: "\n"))
        """
      )
    }
    for (id, _) in inFlight {
      mailbox.forget(effect: id)
      effectTasks[id] = nil
    }
  }

  /// Reports unreceived actions and in-flight effects as ``exhaustivity`` says, then forgets
  /// them, so that they are reported once.
  func reportUnfinishedWork(at location: TestLocation) {
    let inFlight = mailbox.inFlight
    switch exhaustivity {
    case .on:
      if !receivedActions.isEmpty {
        location.fail(unreceivedActionsMessage)
      }
      for (_, effect) in inFlight { effect.location.fail(stillRunningMessage(effect.origin)) }
    case .off(showSkippedAssertions: true):
      if !receivedActions.isEmpty {
        location.skipped(unreceivedActionsMessage)
      }
      for (_, effect) in inFlight { effect.location.skipped(stillRunningMessage(effect.origin)) }
    case .off(showSkippedAssertions: false):
      break
    }
    receivedActions.removeAll()
  }

  private var unreceivedActionsMessage: String {
    let count = receivedActions.count
    return """
      The store received \(count) unexpected action\(count == 1 ? "" : "s") by the end of this \
      test: …

        Unhandled actions:
      \(receivedActions.map { describe($0.action) }.joined(separator: "\n").indented(by: 4))

      Receive them with "store.receive", or skip them with "store.skipReceivedActions()".
      """
  }

  func stillRunningMessage(_ origin: Action) -> String {
    """
    An effect returned for this action is still running. It must complete before the end of \
    the test. …

      Action:
    \(describe(origin).indented(by: 2))

    Make sure the effect ends: advance the test clock it sleeps on, send the action that \
    cancels it ("Effect.cancel(id:)"), or skip it with "store.skipInFlightEffects()".
    """
  }
}

import CasePathsCore
import CustomDump

extension TestStore where Action: Equatable {
  /// Asserts that an effect sent `expectedAction`, and how it changed the state.
  ///
  /// The test store runs its effects until the action has arrived (waiting up to `timeout` only
  /// for effects that work off its executor). An exhaustive test store requires the oldest
  /// action not yet received to be `expectedAction`, and shows a diff otherwise (without
  /// checking the state against the closure, which describes the expected action, as in TCA); a
  /// non-exhaustive one skips the actions before the first that matches.
  ///
  /// - Parameters:
  ///   - expectedAction: The action the effect must have sent.
  ///   - timeout: How long to wait for effects working off the test store's executor; the
  ///     store's ``timeout`` if `nil`.
  ///   - updateStateToExpectedResult: Changes the state before the action into the state the
  ///     test expects after it; `nil` if the state must not change.
  ///   - fileID: The file ID of the place where this step reports its failures; the
  ///     caller's by default.
  ///   - filePath: The file path of that place; the caller's by default.
  ///   - line: The line of that place; the caller's by default.
  ///   - column: The column of that place; the caller's by default.
  ///
  /// ```swift
  /// await store.send(.factButtonTapped) { $0.isLoading = true }
  /// await store.receive(.factResponse("1 is a good number.")) {
  ///   $0.isLoading = false
  ///   $0.fact = "1 is a good number."
  /// }
  /// ```
  public nonisolated(nonsending) func receive(
    _ expectedAction: Action,
    timeout: Duration? = nil,
    assert updateStateToExpectedResult: ((_ state: inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    await receiveAction(
      matching: { $0 == expectedAction },
      expected: describe(expectedAction),
      notReceived: "Expected to receive the following action, but didn't: …",
      mismatch: { received in
        let difference =
          diff(expectedAction, received, format: .proportional)
          .map { "\($0.indented(by: 4))\n\n(Expected: −, Received: +)" }
          ?? "Expected:\n\(describe(expectedAction))\n\nReceived:\n\(describe(received))"
        return "Received unexpected action: …\n\n\(difference)"
      },
      timeout: timeout,
      update: updateStateToExpectedResult,
      at: TestLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    )
  }
}

extension TestStore where Action: CasePathable {
  /// Asserts that an effect sent an action of the case `actionCase`, and how it changed the
  /// state.
  ///
  /// Works like ``receive(_:timeout:assert:fileID:filePath:line:column:)-(Action,_,_,_,_,_,_)``
  /// but matches the action's case only, for actions that are not `Equatable` or whose payload
  /// the test does not care about.
  ///
  /// ```swift
  /// await store.receive(\.searchResponse.success) {
  ///   $0.results = ["Composable Architecture"]
  /// }
  /// ```
  public nonisolated(nonsending) func receive<Value>(
    _ actionCase: CaseKeyPath<Action, Value>,
    timeout: Duration? = nil,
    assert updateStateToExpectedResult: ((_ state: inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    await receiveAction(
      matching: { $0[case: actionCase] != nil },
      expected: "  an action \(describeCase(actionCase))",
      notReceived: "Expected to receive an action matching case path, but didn't get one.",
      mismatch: { received in
        """
        Received unexpected action: …

        \(describe(received))

        Expected an action \(describeCase(actionCase)).
        """
      },
      timeout: timeout,
      update: updateStateToExpectedResult,
      at: TestLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    )
  }

  /// Asserts that an effect sent the action of the case `actionCase` with the payload `value`,
  /// and how it changed the state.
  ///
  /// ```swift
  /// await store.receive(\.factResponse, "1 is a good number.") {
  ///   $0.fact = "1 is a good number."
  /// }
  /// ```
  public nonisolated(nonsending) func receive<Value: Equatable>(
    _ actionCase: CaseKeyPath<Action, Value>,
    _ value: Value,
    timeout: Duration? = nil,
    assert updateStateToExpectedResult: ((_ state: inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    await receiveAction(
      matching: { $0[case: actionCase] == value },
      expected: describe(AnyCasePath(actionCase).embed(value)),
      notReceived: "Expected to receive an action matching case path, but didn't get one.",
      mismatch: { received in
        // As TCA: a diff when the case matches and only the payload differs, else the action.
        guard
          received[case: actionCase] != nil,
          let difference = diff(
            AnyCasePath(actionCase).embed(value), received, format: .proportional)
        else {
          return """
            Received unexpected action: …

            \(describe(received))

            Expected an action \(describeCase(actionCase)).
            """
        }
        return """
          Received unexpected action: …

          \(difference.indented(by: 2))

          (Expected: −, Actual: +)
          """
      },
      timeout: timeout,
      update: updateStateToExpectedResult,
      at: TestLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    )
  }
}

extension TestStore {
  /// Asserts that an effect sent an action for which `isMatching` holds, and how it changed
  /// the state.
  ///
  /// ```swift
  /// await store.receive({ if case .tick = $0 { true } else { false } }) {
  ///   $0.seconds = 1
  /// }
  /// ```
  public nonisolated(nonsending) func receive(
    _ isMatching: (_ action: Action) -> Bool,
    timeout: Duration? = nil,
    assert updateStateToExpectedResult: ((_ state: inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    await receiveAction(
      matching: isMatching,
      expected: "  an action matching the predicate",
      notReceived: "Expected to receive an action matching predicate, but didn't get one.",
      mismatch: { received in
        """
        Received unexpected action: …

        \(describe(received))

        The action does not match the predicate.
        """
      },
      timeout: timeout,
      update: updateStateToExpectedResult,
      at: TestLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    )
  }

  nonisolated(nonsending) func receiveAction(
    matching isMatching: (Action) -> Bool,
    expected: String,
    notReceived: String,
    mismatch: (Action) -> String,
    timeout: Duration?,
    update: ((inout State) throws -> Void)?,
    at location: TestLocation
  ) async {
    executor.beginStep()
    defer { executor.endStep() }
    let exhaustive = exhaustivity == .on
    await runEffects(
      until: {
        exhaustive
          ? !receivedActions.isEmpty
          : receivedActions.contains { isMatching($0.action) }
      },
      timeout: timeout ?? self.timeout,
      at: location
    )
    switch exhaustivity {
    case .on:
      guard !receivedActions.isEmpty else {
        location.fail(nothingReceived(expected: expected, notReceived: notReceived))
        return
      }
      let received = receivedActions.removeFirst()
      // As in TCA, the state is checked only against the action the test expected: the
      // assertion closure describes that action, not the one that arrived instead.
      if isMatching(received.action) {
        expectState(
          from: received.stateBefore, to: received.stateAfter, update: update, at: location
        )
      } else {
        location.fail(mismatch(received.action))
      }
      state = received.stateAfter
    case let .off(showSkippedAssertions):
      guard let index = receivedActions.firstIndex(where: { isMatching($0.action) }) else {
        location.fail(nothingReceived(expected: expected, notReceived: notReceived))
        return
      }
      if showSkippedAssertions, index > 0 {
        location.skipped(
          """
          \(index) received action\(index == 1 ? " was" : "s were") skipped:

          \(receivedActions[..<index].map { describe($0.action) }.joined(separator: "\n"))
          """
        )
      }
      let received = receivedActions[index]
      receivedActions.removeFirst(index + 1)
      expectState(
        from: received.stateBefore, to: received.stateAfter, update: update, at: location
      )
      state = received.stateAfter
    }
    await runEffectsUntilIdle(at: location)
  }

  /// The failure message of a `receive` whose action did not arrive.
  ///
  /// It opens as TCA's does in the same situation: with the overload's own `notReceived` when
  /// no effect is left that could send the action, and with TCA's timeout wording otherwise.
  private func nothingReceived(expected: String, notReceived: String) -> String {
    let others =
      receivedActions.isEmpty
      ? "No action was received."
      : """
      Received instead:
      \(receivedActions.map { describe($0.action) }.joined(separator: "\n"))
      """
    let inFlight = mailbox.inFlight.count
    let waiting =
      inFlight == 0
      ? "No effect is in flight."
      : "\(inFlight) effect\(inFlight == 1 ? " is" : "s are") still in flight."
    let opening =
      inFlight == 0
      ? notReceived
      : exhaustivity == .on
        ? "Expected to receive an action, but received none. …"
        : "Expected to receive a matching action, but received none. …"
    return """
      \(opening)

        Expected:
      \(expected)

      \(others)

      \(waiting)
      """
  }
}

/// A readable name for a case key path, for failure messages.
///
/// A case key path built by `@CasePathable` prints as a computed property with an address, so
/// the name falls back to the enum and the payload's type.
func describeCase<Root, Value>(_ keyPath: CaseKeyPath<Root, Value>) -> String {
  let text = String(describing: keyPath)
  guard text.contains("<computed") || text.contains("<unknown>") else { return text }
  return "of \(String(reflecting: Root.self)) with a payload of type \(Value.self)"
}

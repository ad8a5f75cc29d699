extension TestStore {
  /// Runs `operation` with ``exhaustivity`` set to `exhaustivity`, then restores the
  /// exhaustivity it had before, even if `operation` throws or changes it.
  ///
  /// For the part of a test that checks only what it asserts, inside a test that checks
  /// everything else:
  ///
  /// ```swift
  /// await store.send(.loginButtonTapped) { $0.isLoggingIn = true }
  /// await store.withExhaustivity(.off) {
  ///   await store.receive(\.loginResponse)
  ///   await store.skipReceivedActions(strict: false)
  /// }
  /// await store.send(.logoutButtonTapped) { $0 = .loggedOut }
  /// ```
  ///
  /// Steps check what they find with the exhaustivity in force when they run: actions that
  /// effects send after the last step of `operation`, and effects still running when the test
  /// ends, are checked with the restored exhaustivity. End `operation` with
  /// ``skipReceivedActions(strict:fileID:filePath:line:column:)`` or
  /// ``skipInFlightEffects(strict:fileID:filePath:line:column:)`` where they may go unasserted.
  ///
  /// - Parameters:
  ///   - exhaustivity: The exhaustivity for the steps of `operation`.
  ///   - operation: The steps to run with it.
  /// - Returns: What `operation` returns.
  /// - Throws: What `operation` throws.
  ///
  /// Where Spool differs from TCA: `operation` runs in the caller's isolation, like every
  /// step of Spool's test store, rather than on the main actor.
  public nonisolated(nonsending) func withExhaustivity<R>(
    _ exhaustivity: Exhaustivity,
    operation: nonisolated(nonsending) () async throws -> R
  ) async rethrows -> R {
    let previous = self.exhaustivity
    self.exhaustivity = exhaustivity
    defer { self.exhaustivity = previous }
    return try await operation()
  }

  /// Runs the synchronous `operation` with ``exhaustivity`` set to `exhaustivity`, then
  /// restores the exhaustivity it had before.
  ///
  /// The synchronous counterpart of the `async` `withExhaustivity(_:operation:)`, for checks
  /// that run no step, such as ``assert(_:fileID:filePath:line:column:)``:
  ///
  /// ```swift
  /// store.withExhaustivity(.off) {
  ///   store.assert { $0.isLoggedIn = true }
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - exhaustivity: The exhaustivity while `operation` runs.
  ///   - operation: The synchronous work to run with it.
  /// - Returns: What `operation` returns.
  /// - Throws: What `operation` throws.
  public func withExhaustivity<R>(
    _ exhaustivity: Exhaustivity,
    operation: () throws -> R
  ) rethrows -> R {
    let previous = self.exhaustivity
    self.exhaustivity = exhaustivity
    defer { self.exhaustivity = previous }
    return try operation()
  }
}

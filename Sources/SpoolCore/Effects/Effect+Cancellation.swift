import ConcurrencyExtras
import IssueReporting

extension Effect {
  /// Registers this effect's task under `id`, so that ``cancel(id:)`` can cancel it.
  ///
  /// With `cancelInFlight: true`, effects already registered under `id` are cancelled before
  /// this one starts: the usual way to keep only the latest request of a search field, or to
  /// restart a timer. IDs belong to one store: two stores may use the same ID without touching
  /// each other's effects.
  ///
  /// IDs belong to the feature that uses them, as in TCA: inside a child run by
  /// ``Reducer/ifLet(_:action:then:fileID:filePath:line:column:)-9z118``,
  /// ``Reducer/ifCaseLet(_:action:then:fileID:filePath:line:column:)-40bcs`` or
  /// ``Reducer/forEach(_:action:element:fileID:filePath:line:column:)``, an ID is qualified by
  /// that child's identity (its path in the parent's state, and the element's or child's ID),
  /// so two rows that both use `CancelID.download` with `cancelInFlight: true` do not cancel
  /// each other, and a row's ``cancel(id:)`` reaches only that row's effects. The parent's own
  /// IDs stay as they are, and the parent cannot reach a child's effects by the child's ID:
  /// send the child an action, or remove it (its effects end with it).
  ///
  /// An effect cancelled before its operation has begun may never begin: the store starts the
  /// cancellable effects of the actions it reduces from its queue at the end of each drain
  /// pass, so a burst of restarts reduced together starts only the last one's operation.
  ///
  /// - Parameters:
  ///   - id: Any hashable, sendable value; an enum case or a type's name reads well.
  ///   - cancelInFlight: Whether to cancel effects already running under `id` first.
  ///
  /// ```swift
  /// enum CancelID { case search }
  ///
  /// case let .queryChanged(query):
  ///   state.query = query
  ///   return .run { send in
  ///     try await clock.sleep(for: .milliseconds(300))
  ///     await send(.searchResponse(try await api.search(query)))
  ///   }
  ///   .cancellable(id: CancelID.search, cancelInFlight: true)
  /// ```
  @inlinable
  public func cancellable<ID: Hashable & Sendable>(id: ID, cancelInFlight: Bool = false) -> Self {
    switch operation {
    case .none:
      return .none
    case .send, .cancel:
      // Nothing of it runs in a task, so there is nothing to register. `cancelInFlight` still
      // applies: it cancels what runs under `id` now.
      guard cancelInFlight else { return self }
      return .merge(.cancel(id: id), self)
    default:
      return Self(
        operation: .cancellable(
          id: AnyHashableSendable(id), cancelInFlight: cancelInFlight, self
        )
      )
    }
  }

  /// An effect that cancels every running effect of this store registered under `id`.
  ///
  /// Cancelling an ID that nothing runs under does nothing. Returned by a child reducer run by
  /// `ifLet`, `ifCaseLet` or `forEach`, it cancels only that child's effects under `id` (see
  /// ``cancellable(id:cancelInFlight:)``).
  ///
  /// ```swift
  /// case .stopButtonTapped:
  ///   state.isTimerRunning = false
  ///   return .cancel(id: CancelID.timer)
  /// ```
  @inlinable
  public static func cancel<ID: Hashable & Sendable>(id: ID) -> Self {
    Self(operation: .cancel(id: AnyHashableSendable(id)))
  }
}

/// Runs `operation` as a task registered under `id` in the current store, so that
/// `Effect.cancel(id:)` can cancel it from a reducer.
///
/// For use inside `Effect.run`, when only part of an effect should be cancellable, or when the
/// cancellable part is decided at run time. Outside a store's effect, `operation` runs with no
/// registration and a runtime issue is reported. Inside an effect of a child feature (`ifLet`,
/// `ifCaseLet`, `forEach`), `id` is qualified by the child's identity, as the child's
/// ``Effect/cancellable(id:cancelInFlight:)`` is.
///
/// - Parameters:
///   - id: The cancellation ID.
///   - cancelInFlight: Whether to cancel work already registered under `id` first.
///   - operation: The work to run.
///   - fileID: The file ID of the place where a call outside a store's effect is reported;
///     the caller's by default.
///   - filePath: The file path of that place; the caller's by default.
///   - line: The line of that place; the caller's by default.
///   - column: The column of that place; the caller's by default.
/// - Returns: The result of `operation`.
/// - Throws: What `operation` throws, or `CancellationError` if it was cancelled before it
///   returned a value.
///
/// ```swift
/// return .run { send in
///   await send(.started)
///   try await withTaskCancellation(id: CancelID.download, cancelInFlight: true) {
///     try await download()
///   }
///   await send(.finished)
/// }
/// ```
public func withTaskCancellation<ID: Hashable & Sendable, T: Sendable>(
  id: ID,
  cancelInFlight: Bool = false,
  operation: @escaping @Sendable () async throws -> T,
  fileID: StaticString = #fileID,
  filePath: StaticString = #filePath,
  line: UInt = #line,
  column: UInt = #column
) async throws -> T {
  guard let registry = EffectRegistry.current else {
    reportIssue(
      """
      "withTaskCancellation(id: \(id))" was called outside an effect of a store, so nothing \
      can cancel it by ID.
      """,
      fileID: fileID, filePath: filePath, line: line, column: column
    )
    return try await operation()
  }
  // Inside a child's effect, `id` is the child's own (see `ScopedCancelID`).
  return try await registry.runCancellable(
    id: CancelScope.qualified(AnyHashableSendable(id)), cancelInFlight: cancelInFlight,
    operation: operation
  )
}

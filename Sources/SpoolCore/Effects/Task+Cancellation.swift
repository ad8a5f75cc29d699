import ConcurrencyExtras
import IssueReporting

extension Task where Success == Never, Failure == Never {
  /// Cancels the effects registered under `id` in the store of the effect that calls it.
  ///
  /// The counterpart of ``Effect/cancel(id:)`` for code running inside an effect: it cancels
  /// what ``Effect/cancellable(id:cancelInFlight:)`` and
  /// ``withTaskCancellation(id:cancelInFlight:operation:fileID:filePath:line:column:)``
  /// registered under `id`, the calling effect included if it runs under `id`. Cancelling an
  /// ID that nothing runs under does nothing.
  ///
  /// ```swift
  /// case .stopButtonTapped:
  ///   return .run { _ in
  ///     await analytics.track("timer stopped")
  ///     Task.cancel(id: CancelID.timer)
  ///   }
  /// ```
  ///
  /// Where Spool differs from TCA: TCA keeps cancellation IDs in one table for the whole
  /// process; Spool's belong to a store. This function finds the store through the calling
  /// task: every effect task binds its store's registry of effects as a task-local value, which
  /// child tasks and `Task { … }` inherit and `Task.detached` does not. Outside an effect of a
  /// store, nothing is cancelled and a runtime issue is reported. As in TCA, it is synchronous:
  /// write `Task.cancel(id:)` without `await`.
  ///
  /// Inside an effect of a child feature run by `ifLet`, `ifCaseLet` or `forEach`, `id` is
  /// the child's own, as with ``Effect/cancel(id:)`` in its reducer: a row cancels its own
  /// effects under `id`, not its siblings'.
  ///
  /// - Parameters:
  ///   - id: The cancellation ID.
  ///   - fileID: The file ID of the place where a misuse is reported; the caller's by default.
  ///   - filePath: The file path of that place; the caller's by default.
  ///   - line: The line of that place; the caller's by default.
  ///   - column: The column of that place; the caller's by default.
  public static func cancel<ID: Hashable & Sendable>(
    id: ID,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) {
    guard let registry = EffectRegistry.current else {
      reportIssue(
        """
        "Task.cancel(id: \(id))" was called outside an effect of a store, so it has no store \
        whose effects it could cancel.
        """,
        fileID: fileID, filePath: filePath, line: line, column: column
      )
      return
    }
    // Inside a child's effect, `id` is the child's own (see `ScopedCancelID`).
    registry.cancel(id: CancelScope.qualified(AnyHashableSendable(id)))
  }
}

import CasePathsCore

extension Store where Action: CasePathable {
  /// Reduces the action of the payload-free case `actionCase`.
  ///
  /// As ``send(_:)-(Action)``, with the action named by a case key path, as TCA writes it; the
  /// key path may go through a ``PresentationAction`` (`\.destination.presented.save`), or
  /// into one element of a stack or a `forEach` with `[id:]`. Awaited, as every `send` of
  /// Spool's store is.
  ///
  /// - Parameter actionCase: The case key path of the action to send.
  /// - Returns: A handle to wait for (``StoreTask/finish()``) or cancel the action's effects.
  ///
  /// ```swift
  /// await store.send(\.destination.presented.editor.saveTapped)
  /// await store.send(\.path[id: 0].nextTapped)
  /// ```
  @discardableResult
  @inlinable
  public nonisolated(nonsending) func send(_ actionCase: CaseKeyPath<Action, Void>) async
    -> StoreTask
  {
    await send(actionCase())
  }

  /// Reduces the action of the case `actionCase` with the payload `value`.
  ///
  /// As ``send(_:)-(Action)``, with the action built from a case key path and its payload.
  ///
  /// - Parameters:
  ///   - actionCase: The case key path of the action to send.
  ///   - value: The payload of the action.
  /// - Returns: A handle to wait for (``StoreTask/finish()``) or cancel the action's effects.
  ///
  /// ```swift
  /// await store.send(\.queryChanged, "comp")
  /// ```
  @discardableResult
  @inlinable
  public nonisolated(nonsending) func send<Value>(
    _ actionCase: CaseKeyPath<Action, Value>, _ value: Value
  ) async -> StoreTask {
    await send(actionCase(value))
  }
}

/// Sends actions from a running effect back into its store.
///
/// A `Send` is handed to the operation of an ``Effect/run(priority:operation:catch:fileID:filePath:line:column:)``.
/// Calling it enqueues the action on the store's queue (it does not wait for the action to be
/// reduced) and returns at once. Once the effect's task has been cancelled, sends are ignored,
/// so that a cancelled effect cannot feed stale results back into the store.
///
/// Unlike TCA's `Send`, which is isolated to the main actor, Spool's `Send` may be called from
/// any task or thread. It is `async` so that code reads as in TCA (`await send(.action)`), but
/// it never suspends.
///
/// ```swift
/// return .run { send in
///   let results = try await searchClient.search(query)
///   await send(.searchResponse(results))
/// }
/// ```
public struct Send<Action: Sendable>: Sendable {
  @usableFromInline
  let sink: @Sendable (Action) -> Void

  /// Creates a `Send` that passes each action to `send`.
  ///
  /// Useful in tests of code that takes a `Send`:
  ///
  /// ```swift
  /// let received = LockIsolated<[Feature.Action]>([])
  /// let send = Send<Feature.Action> { action in received.withValue { $0.append(action) } }
  /// await send(.refresh)
  /// ```
  public init(send: @escaping @Sendable (Action) -> Void) {
    self.sink = send
  }

  /// Sends `action` to the store, unless the current task is cancelled.
  ///
  /// - Complexity: O(1); enqueues without waiting for the action to be reduced.
  ///
  /// In debug builds, a send from a task that an `Effect.run` operation started and did not
  /// wait for, after the operation returned, is reported as a misuse (the action is still
  /// sent): the effect is over, and nothing ties the send to it any more.
  @inlinable
  public func callAsFunction(_ action: Action) async {
    guard !Task.isCancelled else { return }
    #if DEBUG
      EffectRunScope.checkSend(action)
    #endif
    sink(action)
  }

  /// A `Send` that transforms actions with `transform` before sending them here.
  func map<Child: Sendable>(
    _ transform: @escaping @Sendable (Child) -> Action
  ) -> Send<Child> {
    let sink = self.sink
    return Send<Child> { sink(transform($0)) }
  }
}

/// The effects one ``TestStore/send(_:assert:fileID:filePath:line:column:)-(Action,_,_,_,_,_)``
/// started: wait for them to end, or cancel them.
///
/// ```swift
/// let task = await store.send(.onAppear)
/// await store.receive(\.response) { $0.items = [1, 2, 3] }
/// await task.cancel()
/// ```
public struct TestStoreTask {
  let store: any TestStoreEffects
  let effects: [Int]
  let tasks: [Task<Void, any Error>]

  /// Runs the test store's effects until these have ended, with the effects started by the
  /// actions they sent, recursively; fails the test if they are still running after `timeout`
  /// (the store's own timeout if `nil`).
  ///
  /// As TCA's does, it waits for the whole chain: an action one of these effects sent, once
  /// reduced, may start effects of its own, and those are waited for too (and theirs in turn).
  ///
  /// ```swift
  /// await store.send(.saveButtonTapped).finish()
  /// ```
  public nonisolated(nonsending) func finish(
    timeout: Duration? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    await store.finish(
      effects: effects,
      timeout: timeout,
      at: TestLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    )
  }

  /// Cancels these effects, and the effects started by the actions they sent, recursively,
  /// then runs the test store's effects until they have unwound.
  ///
  /// As in TCA, the cancellation cascades: an action that one of these effects sent back, once
  /// received, may have started effects of its own, and those are cancelled too (and theirs in
  /// turn). Effects started by actions the test sent itself are not.
  ///
  /// ```swift
  /// await task.cancel()
  /// ```
  public nonisolated(nonsending) func cancel(
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    await store.cancel(
      effects: effects,
      at: TestLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    )
  }

  /// Whether every task of these effects was cancelled.
  public var isCancelled: Bool { tasks.allSatisfy(\.isCancelled) }
}

/// What a ``TestStoreTask`` needs of its test store, whatever its state and action types.
protocol TestStoreEffects: AnyObject {
  nonisolated(nonsending) func finish(effects: [Int], timeout: Duration?, at: TestLocation) async
  nonisolated(nonsending) func cancel(effects: [Int], at: TestLocation) async
}

extension TestStore: TestStoreEffects {
  nonisolated(nonsending) func finish(
    effects ids: [Int], timeout: Duration?, at location: TestLocation
  ) async {
    executor.beginStep()
    defer { executor.endStep() }
    // The whole tree, as for `cancel`: effects of actions these sent count, found as they start.
    let isDone = {
      self.withDescendants(ids).allSatisfy { !self.mailbox.isInFlight(effect: $0) }
    }
    await runEffects(until: isDone, timeout: timeout ?? self.timeout, at: location)
    let tree = Set(withDescendants(ids))
    let running = mailbox.inFlight.filter { tree.contains($0.id) }
    guard !running.isEmpty else { return }
    let actions = running.map { describe($0.effect.origin) }.joined(separator: "\n")
    location.fail(
      """
      Expected task to finish, but it is still in-flight. …

        Effects of:
      \(actions.indented(by: 2))
      """
    )
  }

  nonisolated(nonsending) func cancel(effects ids: [Int], at location: TestLocation) async {
    executor.beginStep()
    defer { executor.endStep() }
    await cancelEffects(withDescendants(ids), at: location)
  }
}

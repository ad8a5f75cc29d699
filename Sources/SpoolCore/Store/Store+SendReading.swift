extension Store {
  /// Reduces `action` and returns what `read` takes from the state right after it, in one
  /// step: no other producer's action is reduced in between.
  ///
  /// The state `read` sees is the one after `action` and after the actions its effects sent
  /// synchronously (``Effect/send(_:)``, reduced right after it as with ``send(_:)-(Action)``);
  /// actions that other producers enqueued meanwhile, and those that asynchronous effects
  /// send later, come after. This is the request/response shape of a server: a plain actor
  /// method that mutates and returns its result, where `await store.send(action)` followed by
  /// `await store.state` would let another request's action land between the two.
  ///
  /// `read` runs while the store is held, on whichever thread reduced the action: keep it
  /// short, and do not wait in it. Sending after ``shutdown()`` is a reported misuse, as for
  /// ``send(_:)-(Action)``: the action is dropped and `read` sees the state as it was.
  ///
  /// - Parameters:
  ///   - action: The action to reduce.
  ///   - read: Takes the value to return from the state after the action.
  /// - Returns: What `read` returned.
  ///
  /// ```swift
  /// let total = await cart.send(.add(item)) { $0.total }
  /// ```
  @inlinable
  public nonisolated(nonsending) func send<Value: Sendable>(
    _ action: Action, reading read: @Sendable (State) -> Value
  ) async -> Value {
    // Through the entry that the store's `init` specialized for its reducer, as `send`: the
    // core's own methods are generic over the reducer, and each call of one costs metadata
    // lookups and witness-table copies of the state and the reducer.
    if let value = Self.trySend(action, reading: read, through: trySendEntry) { return value }
    return await sendReadingOnExecutor(action, read)
  }

  /// Reduces `action` through `entry` (a store's `trySendEntry`) and returns what `read` takes
  /// from the state after it, or `nil` when the store is busy and nothing was reduced.
  @inlinable
  static func trySend<Value>(
    _ action: Action, reading read: (State) -> Value,
    through entry: @Sendable (Action, ((State) -> Void)?) -> StoreTask?
  ) -> Value? {
    var value: Value?
    // The reader runs before the entry returns: it does not escape.
    let reduced = withoutActuallyEscaping({ (state: State) in value = read(state) }) {
      entry(action, $0) != nil
    }
    guard reduced else { return nil }
    guard let value else {
      preconditionFailure("Internal inconsistency: a send returned without its read")
    }
    return value
  }

  /// ``send(_:reading:)`` when the store is busy, or runs on an executor it was given.
  @usableFromInline
  nonisolated(nonsending) func sendReadingOnExecutor<Value: Sendable>(
    _ action: Action, _ read: @Sendable (State) -> Value
  ) async -> Value {
    await core.sendReading(action, read, isolation: core.isolation)
  }

  /// Gives `body` the current state and returns what it returns, as TCA's
  /// `store.withState`.
  ///
  /// The state is read with the store's lock, as ``state`` reads it: at once when the store is
  /// idle, after the current pass when it is busy. `body` runs in the caller's isolation, on a
  /// snapshot of the state.
  ///
  /// - Parameter body: Takes what the caller needs from the state.
  /// - Returns: What `body` returned.
  ///
  /// ```swift
  /// let count = await store.withState { $0.count }
  /// ```
  public nonisolated(nonsending) func withState<Value>(
    _ body: (State) throws -> Value
  ) async rethrows -> Value {
    if let state = core.tryReadState() { return try body(state) }
    return try body(await core.readState(isolation: core.isolation))
  }
}

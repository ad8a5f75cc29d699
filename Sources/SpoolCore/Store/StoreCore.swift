/// What a ``Store`` forwards to, besides `send` and `enqueue` (which `Store` holds as closures
/// specialized for the reducer): the root core that owns the state, the reducer and the queue,
/// or a scoped core that maps a child's view onto its parent's core.
///
/// Methods documented "on the store's executor" must be called only from code isolated to the
/// store tree's ``StoreIsolation`` (a `Store` method, or the drain loop).
protocol StoreCore<State, Action>: AnyObject, Sendable {
  associatedtype State: Sendable
  associatedtype Action: Sendable

  /// The serial executor of the store tree.
  var isolation: any StoreIsolation { get }

  /// The current state, read with the root's consumer lock: taken at once when it is free,
  /// else waited for on the store's executor.
  func readState(isolation: isolated any StoreIsolation) async -> State

  /// The current state if the root's consumer lock is free now, `nil` otherwise; any thread.
  func tryReadState() -> State?

  /// Reduces `action` and returns `read` of the state right after it, once the root's
  /// consumer lock is free, on the store's executor.
  func sendReading<Value>(
    _ action: Action, _ read: (State) -> Value, isolation: isolated any StoreIsolation
  ) async -> Value

  /// Reduces what is queued now, with the root's consumer lock, on the store's executor.
  func settle(isolation: isolated any StoreIsolation) async

  /// A new coalescing sequence of state snapshots; any thread.
  func makeStates() -> StoreStates<State>

  /// Waits for every effect to end and every queued action to be reduced, isolated to the
  /// store's executor (a plain `async` method of a class would run on the global executor).
  func finish(isolation: isolated any StoreIsolation) async

  /// Cancels every effect and refuses later actions; on the store's executor.
  func shutdown()

  /// Whether ``shutdown()`` was called.
  var isShutdown: Bool { get }

  /// Cancels every running effect and every later one, and goes on reducing actions: a
  /// registry's store that a call still holds at the shutdown's deadline; any thread.
  func cancelEffects()

  /// The `Store` that forwards to this core was deinitialized; any thread.
  func storeReleased()

  /// The number of effect tasks running now; any thread.
  var runningEffectCount: Int { get }
}

import CasePaths
import Dependencies

/// The runtime of a feature: it holds the state, reduces actions one at a time, and owns the
/// effects those actions start.
///
/// A `Store` is an actor. Actions are reduced one at a time, in the order they arrive; actions
/// that an effect sends synchronously (``Effect/send(_:)``) are reduced right after the action
/// that produced them, before actions that other producers enqueued meanwhile. There are two
/// ways in:
///
/// - `await store.send(action)`: returns once the action has been reduced, with a ``StoreTask``
///   for the effects it started. This is TCA's `send`, except that it is awaited, because the
///   store is an actor rather than main-actor bound.
/// - `store.enqueue(action)`: fire-and-forget from any thread, synchronous code included, for
///   high-volume producers. Producers append to a lock-free ring (a locked overflow list only
///   while it is full), and the store drains it in
///   batches: one wake-up of the store per idle→busy transition, not one job per action.
///
/// ```swift
/// let store = Store(initialState: Counter.State()) {
///   Counter()
/// } withDependencies: {
///   $0.continuousClock = ImmediateClock()
/// }
///
/// await store.send(.incrementButtonTapped)
/// store.enqueue(.incrementButtonTapped)
/// await store.finish()
/// print(await store.state.count)  // 2
/// ```
public actor Store<State: Sendable, Action: Sendable> {
  nonisolated let core: any StoreCore<State, Action>
  /// Keeps the parent of a scoped store alive as long as the scoped store.
  nonisolated let parent: (any Sendable)?
  /// `enqueue` and `send`, compiled for the concrete reducer by the inlinable `init` (see
  /// `RootCore`), or forwarding to the parent for a scoped store. `sendEntry` must be called on
  /// the store's executor.
  @usableFromInline nonisolated let enqueueEntry: @Sendable (Action) -> Void
  @usableFromInline nonisolated let sendEntry: @Sendable (Action) -> StoreTask

  /// The store's executor: the one serial executor of the store and every store scoped from it.
  public nonisolated var unownedExecutor: UnownedSerialExecutor {
    executor
  }
  /// Read on every call into the store: stored, rather than asked of the core each time.
  nonisolated let executor: UnownedSerialExecutor

  /// Creates a store that runs `reducer` from `initialState`.
  ///
  /// - Parameters:
  ///   - initialState: The state to start from.
  ///   - instrumentation: Receives the timing of every action and effect (see `SpoolProfiling`);
  ///     `nil` (the default) costs one branch per action.
  ///   - reducer: The feature's reducer, built in a trailing closure as in TCA.
  ///   - prepareDependencies: Overrides dependencies for the reducer and its effects.
  ///
  /// ```swift
  /// let store = Store(initialState: Search.State()) {
  ///   Search()
  /// } withDependencies: {
  ///   $0.searchClient = .mock
  /// }
  /// ```
  @inlinable
  public init<R: Reducer<State, Action> & SendableMetatype>(
    initialState: State,
    instrumentation: (any StoreInstrumentation<Action>)? = nil,
    @ReducerBuilder<State, Action> reducer: () -> R,
    withDependencies prepareDependencies: ((inout DependencyValues) -> Void)? = nil
  ) {
    self.init(
      initialState: initialState,
      options: StoreOptions(instrumentation: instrumentation),
      reducer: reducer,
      withDependencies: prepareDependencies
    )
  }

  /// Creates a store with options other Spool modules set (the effect executor, the queue's
  /// capacity).
  @inlinable
  package init<R: Reducer<State, Action> & SendableMetatype>(
    initialState: State,
    options: StoreOptions<Action>,
    @ReducerBuilder<State, Action> reducer: () -> R,
    withDependencies prepareDependencies: ((inout DependencyValues) -> Void)? = nil
  ) {
    let (reducer, dependencies) = withDependencies(prepareDependencies ?? { _ in }) {
      @Dependency(\.self) var dependencies
      return (reducer(), dependencies)
    }
    let core = RootCore(
      initialState: initialState,
      reducer: reducer,
      dependencies: dependencies,
      instrumentation: options.instrumentation,
      executor: options.executor,
      effectExecutor: options.effectExecutor,
      queueCapacity: options.queueCapacity
    )
    core.install()
    self.init(root: core, enqueue: { core.enqueueInline($0) }, send: { core.sendInline($0) })
  }

  @usableFromInline
  init<R: Reducer<State, Action>>(
    root: RootCore<R>,
    enqueue: @escaping @Sendable (Action) -> Void,
    send: @escaping @Sendable (Action) -> StoreTask
  ) {
    self.core = root
    self.executor = root.isolation.unownedExecutor
    self.parent = nil
    self.enqueueEntry = enqueue
    self.sendEntry = send
  }

  init(
    core: any StoreCore<State, Action>,
    parent: any Sendable,
    enqueue: @escaping @Sendable (Action) -> Void,
    send: @escaping @Sendable (Action) -> StoreTask
  ) {
    self.core = core
    self.executor = core.isolation.unownedExecutor
    self.parent = parent
    self.enqueueEntry = enqueue
    self.sendEntry = send
  }

  deinit {
    core.storeReleased()
  }

  /// Reduces `action` after every action already enqueued, and starts its effects.
  ///
  /// When `send` returns, the action has been reduced, together with the actions its effects
  /// sent synchronously. The returned task tracks the asynchronous effects it started. Sending
  /// after ``shutdown()`` is a reported misuse: the action is dropped, nothing crashes.
  ///
  /// - Parameter action: The action to reduce.
  /// - Returns: A handle to wait for (``StoreTask/finish()``) or cancel the action's effects.
  ///
  /// ```swift
  /// await store.send(.incrementButtonTapped)
  /// await store.send(.factButtonTapped).finish()
  /// ```
  @discardableResult
  public func send(_ action: Action) -> StoreTask {
    sendEntry(action)
  }

  /// Appends `action` to the store's queue and returns at once; callable from any thread.
  ///
  /// For high-volume producers and for synchronous code. The action is reduced after every
  /// action that was enqueued before it, by the store's drain loop. Enqueueing after
  /// ``shutdown()`` is a reported misuse: the action is dropped.
  ///
  /// A producer task that enqueues without ever suspending holds one of the cooperative pool's
  /// threads (there are as many as cores) while it runs, and the store's drain loop needs one
  /// too: yield now and then, for instance once per queue capacity (1,024 actions by default),
  /// or the queue spills into its overflow until the producer is done.
  ///
  /// - Complexity: O(1). With the store busy, one compare-and-swap and no allocation.
  ///
  /// ```swift
  /// for line in input {
  ///   store.enqueue(.lineReceived(line))
  /// }
  /// await store.finish()
  /// ```
  public nonisolated func enqueue(_ action: Action) {
    enqueueEntry(action)
  }

  /// The current state.
  ///
  /// ```swift
  /// let count = await store.state.count
  /// ```
  public var state: State {
    core.currentState
  }

  /// The store's states over time: the current state first, then the latest one after each
  /// batch of actions. Slow observers skip states instead of slowing the store down.
  ///
  /// ```swift
  /// for await count in store.states.map(\.count) {
  ///   print(count)
  /// }
  /// ```
  public nonisolated var states: StoreStates<State> {
    core.makeStates()
  }

  /// Waits until every effect has ended and every queued action has been reduced.
  ///
  /// Effects that never end (a timer nobody stops) make `finish` wait forever: cancel them, or
  /// ``shutdown()``.
  ///
  /// ```swift
  /// store.enqueue(.load)
  /// await store.finish()
  /// ```
  public func finish() async {
    await core.finish(isolation: core.isolation)
  }

  /// Cancels every running effect and refuses later actions.
  ///
  /// Actions still queued are dropped; observers of ``states`` finish. Sending or enqueueing
  /// afterwards is reported as a misuse (a test failure under a test runner, a runtime warning
  /// otherwise) and does nothing. A store shuts down by itself when it is released.
  ///
  /// ```swift
  /// await store.shutdown()
  /// ```
  public func shutdown() {
    core.shutdown()
  }

  /// Whether ``shutdown()`` was called.
  public var isShutdown: Bool { core.isShutdown }

  /// The number of effect tasks running now (including tasks that were cancelled and have not
  /// ended yet).
  ///
  /// ```swift
  /// await store.shutdown()
  /// await store.finish()
  /// assert(store.runningEffectCount == 0)
  /// ```
  public nonisolated var runningEffectCount: Int { core.runningEffectCount }
}

/// Options of a store that other Spool modules set.
@usableFromInline
package struct StoreOptions<Action: Sendable>: Sendable {
  @usableFromInline package var instrumentation: (any StoreInstrumentation<Action>)?
  /// The serial executor the store reduces on (SpoolIO's loop thread), or `nil` for a queue of
  /// its own on Swift's cooperative pool.
  @usableFromInline package var executor: (any SerialExecutor)?
  /// The executor effect tasks prefer (SpoolIO's loop thread, or a test's serial executor).
  @usableFromInline package var effectExecutor: (any TaskExecutor)?
  /// The capacity of the lock-free part of the action queue.
  @usableFromInline package var queueCapacity: Int

  @usableFromInline
  package init(
    instrumentation: (any StoreInstrumentation<Action>)? = nil,
    executor: (any SerialExecutor)? = nil,
    effectExecutor: (any TaskExecutor)? = nil,
    queueCapacity: Int = 1024
  ) {
    self.instrumentation = instrumentation
    self.executor = executor
    self.effectExecutor = effectExecutor
    self.queueCapacity = queueCapacity
  }
}

import CasePathsCore
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
  /// Keeps the parent of a scoped store alive as long as the scoped store. A class-bound
  /// existential (one word) rather than `any Sendable` (four): every store holds this field.
  nonisolated let parent: (any AnyObject & Sendable)?
  /// `enqueue` and `send`, compiled for the concrete reducer by the inlinable `init` (see
  /// `RootCore`), or forwarding to the parent for a scoped store. `trySendEntry` reduces on
  /// the caller's thread when the store is idle, gives its reader (if any) the state right
  /// after the action, and returns `nil` when the store is busy; `sendEntry` waits for the
  /// store on its executor. One entry serves `send` and `send(_:reading:)`, so that both run
  /// the specialized reduce without a field more in every store.
  @usableFromInline nonisolated let enqueueEntry: @Sendable (Action) -> Void
  @usableFromInline nonisolated let trySendEntry: @Sendable (Action, ((State) -> Void)?) ->
    StoreTask?
  @usableFromInline nonisolated let sendEntry: @Sendable (Action) async -> StoreTask

  /// The store's executor: the one serial executor of the store and every store scoped from it.
  public nonisolated var unownedExecutor: UnownedSerialExecutor {
    executor
  }
  /// Read on every call into the store: stored, rather than asked of the core each time.
  nonisolated let executor: UnownedSerialExecutor

  /// Creates a store that runs `reducer` from `initialState`.
  ///
  /// - Parameters:
  ///   - initialState: The state to start from, made with the store's dependencies: a
  ///     `@Dependency` that its `init` reads sees the overrides of `prepareDependencies`.
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
    // `R.State`, not `State`: the compiler then takes the state's type from the reducer, so
    // that `initialState: .init()` compiles, as in TCA.
    initialState: @autoclosure () -> R.State,
    instrumentation: (any StoreInstrumentation<Action>)? = nil,
    @ReducerBuilder<State, Action> reducer: () -> R,
    withDependencies prepareDependencies: ((inout DependencyValues) -> Void)? = nil
  ) {
    self.init(
      initialState: initialState(),
      options: StoreOptions(instrumentation: instrumentation),
      reducer: reducer,
      withDependencies: prepareDependencies
    )
  }

  /// Creates a store with options other Spool modules set (the effect executor, the queue's
  /// capacity).
  @inlinable
  package init<R: Reducer<State, Action> & SendableMetatype>(
    initialState: @autoclosure () -> State,
    options: StoreOptions<Action>,
    @ReducerBuilder<State, Action> reducer: () -> R,
    withDependencies prepareDependencies: ((inout DependencyValues) -> Void)? = nil
  ) {
    // The initial state is made with the store's dependencies, as the reducer is: a state
    // whose `init` reads `@Dependency(\.date)` gets the overridden date, as in TCA.
    let (reducer, dependencies, initialState) = withDependencies(prepareDependencies ?? { _ in }) {
      @Dependency(\.self) var dependencies
      return (reducer(), dependencies, initialState())
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
    self.init(
      root: core,
      enqueue: { core.enqueue($0) },
      trySend: { core.trySend($0, reading: $1) },
      send: { await core.sendOnExecutor($0, isolation: core.isolation) }
    )
  }

  @usableFromInline
  init<R: Reducer<State, Action>>(
    root: RootCore<R>,
    enqueue: @escaping @Sendable (Action) -> Void,
    trySend: @escaping @Sendable (Action, ((State) -> Void)?) -> StoreTask?,
    send: @escaping @Sendable (Action) async -> StoreTask
  ) {
    self.core = root
    self.executor = root.isolation.unownedExecutor
    self.parent = nil
    self.enqueueEntry = enqueue
    self.trySendEntry = trySend
    self.sendEntry = send
  }

  init(
    core: any StoreCore<State, Action>,
    parent: any AnyObject & Sendable,
    enqueue: @escaping @Sendable (Action) -> Void,
    trySend: @escaping @Sendable (Action, ((State) -> Void)?) -> StoreTask?,
    send: @escaping @Sendable (Action) async -> StoreTask
  ) {
    self.core = core
    self.executor = core.isolation.unownedExecutor
    self.parent = parent
    self.enqueueEntry = enqueue
    self.trySendEntry = trySend
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
  /// Unlike TCA's `send`, it is awaited: the store is an actor, not bound to the main actor.
  /// When the store is idle, the action is reduced on the caller's thread, without an
  /// executor hop (the store's lock is taken as a plain actor call takes a free actor); when
  /// it is busy, `send` waits for it on the store's executor.
  ///
  /// - Parameter action: The action to reduce.
  /// - Returns: A handle to wait for (``StoreTask/finish()``) or cancel the action's effects.
  ///
  /// ```swift
  /// await store.send(.incrementButtonTapped)
  /// await store.send(.factButtonTapped).finish()
  /// ```
  @discardableResult
  @inlinable
  public nonisolated(nonsending) func send(_ action: Action) async -> StoreTask {
    if let task = trySendEntry(action, nil) { return task }
    return await sendEntry(action)
  }

  /// Hands `action` to the store without waiting; callable from any thread.
  ///
  /// For high-volume producers and for synchronous code. The action is reduced after every
  /// action that was enqueued before it. When the store is idle, `enqueue` reduces it right
  /// here, on the caller's thread, with the store's lock (and the actions its effects send
  /// back without suspending, and those other producers pushed meanwhile, up to a bound);
  /// when the store is busy, it appends the action to the store's queue and returns at once,
  /// and whoever holds the store (another producer, or the store's drain loop) reduces it.
  /// Enqueueing after ``shutdown()`` is a reported misuse: the action is dropped.
  ///
  /// So a reducer runs on whichever thread holds the store, one action at a time, never two at
  /// once; a reducer that enqueues into its own store finds it held, and the action is queued
  /// behind the current one. A store made with an executor (SpoolIO's loop thread) always
  /// queues, so that its reducer runs on that executor; so does a store whose ``states``
  /// someone iterates, so that its drain loop publishes a state per batch, not per action, and
  /// a journaled store (an instrumentation whose ``StoreInstrumentation/timesReduces`` is
  /// `false`), so that the drain loop records on another core while the producer pushes.
  ///
  /// - Complexity: O(1), plus the reduce when the store is idle. No allocation unless the
  ///   queue is full.
  ///
  /// ```swift
  /// for line in input {
  ///   store.enqueue(.lineReceived(line))
  /// }
  /// await store.finish()
  /// ```
  @inlinable
  public nonisolated func enqueue(_ action: Action) {
    enqueueEntry(action)
  }

  /// The current state.
  ///
  /// Read with the store's lock: at once when the store is idle, after the current pass when
  /// it is busy. The read is not isolated to the store: a caller that is not isolated to an
  /// actor (a server's request handler) reads an idle store without a hop.
  ///
  /// ```swift
  /// let count = await store.state.count
  /// ```
  // `nonisolated` (runs where nonisolated async code runs: the global concurrent executor, or
  // the task's preferred executor; the package does not enable NonisolatedNonsendingByDefault),
  // not `nonisolated(nonsending)`: built that way with Swift 6.3.1, a release build crashed (a
  // bad pointer as the caller's isolation) when a read that had waited for a busy store resumed
  // in its caller.
  public nonisolated var state: State {
    get async {
      if let state = core.tryReadState() { return state }
      return await core.readState(isolation: core.isolation)
    }
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
  /// ``shutdown()``, which cancels them, so that every `finish` waiting returns once they
  /// have ended.
  ///
  /// Where Spool differs from TCA: `finish` returns early, without throwing, when the task
  /// awaiting it is cancelled; the caller tells an early return from a finished store by
  /// `Task.isCancelled` (or ``runningEffectCount``). Calling it from one of this store's own
  /// effects is a reported misuse (a test failure under a test runner, a runtime warning
  /// otherwise) and returns at once, since the effect would wait for itself.
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

  /// Cancels every running effect and every later one, and goes on reducing actions: for a
  /// ``StoreRegistry`` whose shutdown deadline came while a call still holds the store.
  nonisolated func cancelEffects() {
    core.cancelEffects()
  }

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
  /// The largest ring the action queue grows to under load, in slots (rounded up to a power
  /// of two, at least 2). An idle store has no ring; beyond this many queued actions,
  /// producers append to the queue's overflow list, under a lock.
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

extension Store {
  /// Reduces what the store has queued now (a registry evicting the store does this before it
  /// shuts the store down, so that no enqueued action is dropped).
  func settleQueue() async {
    await core.settle(isolation: core.isolation)
  }
}

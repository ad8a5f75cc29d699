import CSpoolTime
import CustomDump
import ConcurrencyExtras
import Dependencies
import IssueReporting
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// An action in the queue, with the time it was enqueued when the store is instrumented.
@usableFromInline
struct QueuedAction<Action: Sendable>: Sendable {
  @usableFromInline var action: Action
  @usableFromInline var enqueuedAt: UInt64

  @inlinable
  init(action: Action, enqueuedAt: UInt64) {
    self.action = action
    self.enqueuedAt = enqueuedAt
  }
}

/// The store that owns the state: the reducer, the action queue, the effect registry, the
/// state observers, and the loop that drains the queue.
///
/// The code is split by role: this file holds the stored state, `install`, the observers, the
/// effect registry, the state readers, `finish` and shutdown; `RootCore+Producers` the
/// producers' path (`enqueue`, `send`, reducing on the caller's thread); `RootCore+Drain` the
/// drain loop; `RootCore+Reduce` one reduce with its instrumentation; `RootCore+Effects`
/// starting what reduces return.
///
/// Specialization: the per-action path (`enqueue`, `drainAvailableLocked`,
/// `reduceTimedLocked`) is `@inlinable`, and `Store.init` (also `@inlinable`) installs it as
/// closures created in the caller's module, so that it is compiled for the concrete reducer:
/// unspecialized, the path spends most of its time looking up generic metadata
/// (`Effect<Action>`, tuples), several times the cost of the reduce itself
/// (`spool bench counter-send`).
@usableFromInline
final class RootCore<R: Reducer & SendableMetatype>: StoreCore, ActionQueueDrainer,
  @unchecked Sendable
where R.State: Sendable {
  // @unchecked Sendable, justified: the state behind `statePointer`, `reducer`, `collected`
  // and `defaultIdentity` are read and written only by the holder of the
  // queue's consumer lock (every member that touches them is named `…Locked` or `…Unlocking`
  // and asserts the lock in debug builds, see CONTRIBUTING.md; their callers take it: the drain
  // loop, `finish`, `settle`, the state readers, and producers that reduce on their own thread);
  // the lock is taken with an acquiring CAS and given back with a releasing store, so each
  // holder sees its predecessor's writes. `drainEntry` and `makeEffectSend` are written once by
  // `install`, before any drain starts and before `Store.init` returns, and only read
  // afterwards; `effectSend` is created by the holder of the consumer lock when it first starts
  // an effect (`sendForEffectsLocked`), and read only by holders.
  // `dependenciesKey` points at a global `TaskLocal` object that lives as
  // long as the process and is never written through. `queue`, `registryCell`, `observersCell`
  // (one atomic word each, see `LazyReference`), `shutdownFlag` and `drainActivity` synchronize
  // themselves; every other stored property (`isolation`, `effectExecutor`, `instrumentation`,
  // `dependencies`, `reducesOnCaller`, `reducesEnqueuesOnCaller`, `timesReduces`,
  // `sampleInterval`) is a `let` of a Sendable type. `sampleCountdown` is read and written only
  // by the holder of the consumer lock, as the state is. `caseCounts` is a `let` whose cells
  // only the holder writes.

  @usableFromInline typealias State = R.State
  @usableFromInline typealias Action = R.Action

  @usableFromInline let isolation: any StoreIsolation
  @usableFromInline let queue: ActionQueue<QueuedAction<Action>>
  /// The effect registry, created by the first effect or drain pass (``registry``): an idle
  /// store that never started an effect should not hold one. Shut down with the store.
  @usableFromInline let registryCell = LazyReference<EffectRegistry>()
  /// What the registry's tasks run on, kept for its creation.
  @usableFromInline let effectExecutor: (any TaskExecutor)?
  /// The state observers, created by the first subscriber (``observers``): most stores are
  /// never observed, and an idle store should not hold them. Finished with the store.
  @usableFromInline let observersCell = LazyReference<StateObservers<State>>()
  @usableFromInline let instrumentation: (any StoreInstrumentation<Action>)?

  /// The state, in the queue's allocation (``ActionQueue/trailingStorage(alignment:)``): a
  /// stored property of a class would be checked for exclusive access at run time on every
  /// action. Protected by the consumer lock.
  @usableFromInline let statePointer: UnsafeMutablePointer<State>
  /// Called by the holder of the consumer lock only (read-only after init).
  @usableFromInline let reducer: R
  /// The dependencies the reducer runs with. Read-only after init.
  @usableFromInline let dependencies: DependencyValues
  /// `DependencyValues.currentKey`, looked up once.
  @usableFromInline let dependenciesKey: UnsafeRawPointer

  /// The specialized drain step: reduces up to `limit` queued actions, returns how many.
  /// Set once by `install`, before any drain starts.
  @usableFromInline var drainEntry: ((RootCore, Int) -> Int)?

  /// The `Send` every effect of this store gets: it reduces on the effect's thread when the
  /// store is idle, as a producer's ``enqueue(_:)`` does, and enqueues otherwise. Created
  /// when the store first starts an effect (a store that never does holds none), by the
  /// holder of the consumer lock (``sendForEffectsLocked``), which alone reads and writes it.
  @usableFromInline var effectSend: Send<Action>?

  /// Sets ``effectSend``: set once by `install`, in the caller's module, so that the `Send`
  /// is specialized. It captures nothing, so that setting it allocates nothing: not even
  /// `Self`, whose metadata a closure would capture in a context (24 bytes in every store);
  /// it names `RootCore` instead.
  @usableFromInline var makeEffectSend: ((RootCore) -> Void)?

  /// The effects of the current pass waiting to start (their rule is the type's). Protected by
  /// the consumer lock. Not checked for exclusive access at run time: only the lock's holder
  /// touches it, never re-entrantly. Empty when no pass has left effects collected
  /// (``passWithDependenciesUnlocking(_:)``).
  @exclusivity(unchecked) @usableFromInline var collected = CollectedEffects<Action>()

  /// How many times a drain looks for more work, or tries a lock a producer holds, before it
  /// ends (a few microseconds).
  ///
  /// None on an executor the store was given: there the drain would hold a thread that has
  /// other work (SpoolIO's event loop reaps completions between jobs), so it ends at once.
  var idleSpinLimit: Int { reducesOnCaller ? 4_000 : 0 }

  /// How many actions the drain loop reduces before it lets other jobs on the executor run:
  /// 65,536 on the store's own queue, 256 on an executor it was given (between two batches,
  /// SpoolIO's event loop reaps the completions that the batch's effects wait for).
  var drainBatchLimit: Int { reducesOnCaller ? 65_536 : 256 }

  /// Whether a producer that finds the store idle reduces on its own thread (``enqueue(_:)``,
  /// ``trySend(_:)``). Not on an executor the store was given: there, reduce and
  /// effects must run on that executor's thread (SpoolIO's loop thread).
  @usableFromInline let reducesOnCaller: Bool

  /// Whether an `enqueue` that finds the store idle reduces on its own thread
  /// (``enqueue(_:)``): ``reducesOnCaller``, except for a store whose instrumentation records
  /// every action without timing reduces (an action journal). Recording costs several times a
  /// cheap reduce, so there a producer that only pushes, beside a drain loop that reduces and
  /// records on another core, goes faster than one thread doing both (`spool bench journal`).
  /// `send` still reduces on the caller's thread: it waits for its action anyway.
  @usableFromInline let reducesEnqueuesOnCaller: Bool

  /// The instrumentation's ``StoreInstrumentation/timesReduces``, read once: without it, an
  /// action costs one clock read (its enqueue time) instead of up to three. Declared last, so
  /// that the fields every action reads keep their places in the object.
  @usableFromInline let timesReduces: Bool

  /// Whether the instrumentation reads a timed action in place (``InPlaceActionTiming``): the
  /// store then passes the action's address. Beside ``timesReduces``, in its padding.
  @usableFromInline let timesInPlace: Bool

  // With the four flags above, these two one-byte fields fill one word: between two
  // word-aligned fields they took a word of their own, which put the core of every store in
  // the allocator's next size class.
  @usableFromInline let shutdownFlag = Atomic<Bool>(false)
  /// Whether the dependencies task-local's default value is bit for bit `dependencies`, once
  /// `send` has needed to know. Protected by the consumer lock; read on every action a
  /// producer reduces on its own thread, so not checked for exclusive access at run time.
  @exclusivity(unchecked) @usableFromInline var defaultIdentity: Bool?

  /// One action in this many is timed (``StoreInstrumentation/timingSampling``); 1 without
  /// instrumentation, without ``timesReduces``, and when every action is timed. 32 bits, as
  /// is the countdown: the two fit in the padding after ``timesReduces`` and an idle store
  /// keeps its size class.
  @usableFromInline let sampleInterval: UInt32

  /// Actions reduced on a producer's thread or sent by an effect until the next timed one
  /// (``reduceIsTimedLocked()``); 1 when the next is timed. Protected by the consumer lock, and
  /// only touched by its holder, never re-entrantly.
  @exclusivity(unchecked) @usableFromInline var sampleCountdown: UInt32 = 1

  /// The store's own counts of the actions it does not time, when its instrumentation samples
  /// and keeps them per store (``StoreCaseCountingInstrumentation``); `nil` otherwise.
  /// Retained once by `init` and released by `deinit`: the hot path reads it through
  /// `_withUnsafeGuaranteedRef`, which retains nothing (a strong reference cost a retain and
  /// a release per counted action).
  @usableFromInline let caseCounts: Unmanaged<StoreCaseCounts>?

  @usableFromInline
  init(
    initialState: State,
    reducer: R,
    dependencies: DependencyValues,
    instrumentation: (any StoreInstrumentation<Action>)?,
    executor: (any SerialExecutor)?,
    effectExecutor: (any TaskExecutor)?,
    queueCapacity: Int
  ) {
    self.reducesOnCaller = executor == nil
    // The state lives in the queue's allocation, after the consumer's state: both are written
    // only by the holder of the consumer lock, so they can share lines, which no producer's
    // counter shares (a neighbour read by another thread would take the line away between
    // two actions); and an idle store pays for one 128-aligned block instead of two.
    self.queue = ActionQueue(
      capacity: queueCapacity,
      trailingByteCount: MemoryLayout<State>.size,
      trailingAlignment: MemoryLayout<State>.alignment
    )
    self.isolation = makeStoreIsolation(executor: executor)
    self.effectExecutor = effectExecutor
    self.statePointer = queue.trailingStorage(alignment: MemoryLayout<State>.alignment)
      .bindMemory(to: State.self, capacity: 1)
    self.statePointer.initialize(to: initialState)
    self.reducer = reducer
    self.dependencies = dependencies
    self.dependenciesKey = DependencyValues.currentKey
    self.instrumentation = instrumentation
    let timesReduces = instrumentation?.timesReduces ?? false
    self.timesReduces = timesReduces
    self.reducesEnqueuesOnCaller = executor == nil && (instrumentation == nil || timesReduces)
    self.timesInPlace = instrumentation is any InPlaceActionTiming
    let sampleInterval =
      timesReduces ? UInt32(clamping: max(1, instrumentation?.timingSampling.interval ?? 1)) : 1
    self.sampleInterval = sampleInterval
    self.caseCounts =
      sampleInterval > 1
      ? (instrumentation as? any StoreCaseCountingInstrumentation)?.makeStoreCaseCounts().map {
        Unmanaged.passRetained($0)
      } : nil
  }

  /// Installs the specialized drain step and lets the queue start drains. Called from the
  /// inlinable `Store.init`, so that the closure is compiled for the concrete reducer.
  @inlinable
  func install() {
    drainEntry = { core, limit in core.drainAvailableLocked(limit: limit) }
    // The queue, and the core unretained: the core keeps this `Send`, and effects that outlive
    // the store must not keep the store's state alive. Nor a weak reference to the core: any
    // weak reference gives an object a side table, and then every retain and release of it
    // takes the runtime's slow path (a measurable part of `spool bench effects`). The core is
    // used only by a pass that holds the consumer lock of a queue that is not closed: the
    // queue keeps the core alive until its last drain, after the queue closed, takes that
    // lock and releases it (``passFromEffect(_:to:through:)``). An effect that sends after
    // the store shut down is reported, as a producer's `enqueue` is.
    makeEffectSend = { core in
      let queue = core.queue
      let instrumentation = core.instrumentation
      let sampleInterval = core.sampleInterval
      let reducesOnSender = core.reducesEnqueuesOnCaller
      let unretainedCore = Unmanaged.passUnretained(core)
      core.effectSend = Send { action in
        if reducesOnSender && RootCore.passFromEffect(action, to: unretainedCore, through: queue) {
          return
        }
        RootCore.enqueue(
          action, into: queue, instrumentation: instrumentation, sampleInterval: sampleInterval)
      }
    }
    attachToQueue()
  }

  /// The `Send` for this store's effects (``effectSend``), created on first use.
  @inlinable
  var sendForEffectsLocked: Send<Action> {
    assertConsumerLockHeld()
    if let send = effectSend { return send }
    guard let make = makeEffectSend else {
      preconditionFailure("Internal inconsistency: an effect started before install()")
    }
    make(self)
    return effectSend.unsafelyUnwrapped
  }

  /// Stops a debug build when the calling thread does not hold the consumer lock; nothing in a
  /// release build (`assert` does not evaluate its condition there).
  ///
  /// Every member named `…Locked` (the lock is still held when it returns) or `…Unlocking` (it
  /// gives the lock back on every path) calls it first: those are the members that touch the
  /// state, the reducer, the collected effects or the other fields the lock protects. The lock
  /// word holds its holder's thread, so the check is exact.
  @inlinable @inline(__always)
  func assertConsumerLockHeld(_ function: StaticString = #function) {
    assert(
      queue.consumerIsHeldByCurrentThread,
      "Internal inconsistency: RootCore.\(function) ran without the consumer lock")
  }

  // MARK: State observers

  /// Calls `body` with the observers if anyone has subscribed; `nil` otherwise.
  @inlinable
  func withCreatedObservers<T>(_ body: (StateObservers<State>) -> T) -> T? {
    observersCell.withExisting(body)
  }

  /// Whether anybody observes the state: one atomic load when nobody ever subscribed.
  @inlinable
  var isObserved: Bool { withCreatedObservers { $0.isObserved } ?? false }

  /// Offers the state to every observer.
  @inlinable
  func publishStateLocked() {
    assertConsumerLockHeld()
    _ = withCreatedObservers { $0.publish(statePointer.pointee) }
  }

  /// The observers, created by the first subscriber; finished ones (whose observers end at
  /// once) if the store shut down before anyone subscribed.
  var observers: StateObservers<State> {
    observersCell.object(make: { StateObservers<State>() }, close: { $0.finishAll() })
  }

  /// Finishes every observer: the store shut down.
  func finishObservers() {
    observersCell.close { $0.finishAll() }
  }

  // MARK: Effect registry

  /// The effect registry, created on first use (an effect, a drain pass); a shut-down one if
  /// the store shut down before that, so that what starts late is cancelled at once.
  @inlinable
  var registry: EffectRegistry {
    registryCell.withExisting { $0 } ?? createRegistry()
  }

  @usableFromInline
  func createRegistry() -> EffectRegistry {
    registryCell.object(
      make: { EffectRegistry(executor: effectExecutor, startsImmediately: true) },
      close: { $0.shutdown() }
    )
  }

  /// Cancels the running effects and every later one; creates no registry.
  func shutDownEffects() {
    registryCell.close { $0.shutdown() }
  }

  /// Makes this core the queue's drainer: from now on, the queue's idle→busy transitions
  /// start drains (``startDrain()``). No drain runs until then, and none while the store is
  /// idle.
  @usableFromInline
  func attachToQueue() {
    queue.setDrainer(self)
  }

  /// Starts one drain, which returns once the queue is empty (``ActionQueueDrainer``): a
  /// detached task, so that it copies none of the producer's task-locals (the drain binds
  /// the store's own), isolated to the store's executor from its first step.
  func startDrain() {
    Task.detached { [self] in await drainLoop(isolation: isolation) }
  }

  // MARK: Drains

  /// How many drains have started (bits 32 and up), how many run now (bits 0 to 30), and
  /// whether two ever ran at once (bit 31, which must never be set): for tests of the
  /// idle→busy protocol. One relaxed add when a drain starts, one when it returns.
  let drainActivity = Atomic<Int>(0)

  // MARK: State, finishing, shutdown

  func readState(isolation: isolated any StoreIsolation) async -> State {
    if let state = tryReadState() { return state }
    await lockOnExecutor(isolation: isolation)
    defer { queue.unlockConsumer() }
    return statePointer.pointee
  }

  func tryReadState() -> State? {
    guard queue.tryLockConsumer() else { return nil }
    defer { queue.unlockConsumer() }
    return statePointer.pointee
  }

  func makeStates() -> StoreStates<State> {
    StoreStates(observers: observers, isolation: isolation) { [self] isolation in
      await readState(isolation: isolation)
    }
  }

  /// `Store.finish()`: reduces what is queued and waits for the effects, until both are done
  /// or the calling task is cancelled.
  ///
  /// An effect of this store that called it would wait for itself (and every other caller
  /// with it): that is reported and returns at once. Effects started by an effect's own
  /// `Task { }` inherit its binding and count as the store's effects here.
  func finish(isolation: isolated any StoreIsolation) async {
    if registryCell.withExisting({ $0.isCurrent }) == true {
      reportIssue(
        """
        "finish()" was called from an effect of the same store, which would wait for itself. \
        It returns at once; wait for the effect's work in the effect, or call "finish()" \
        from outside the store.
        """)
      return
    }
    while true {
      await lockOnExecutor(isolation: isolation)
      _ = drainLocked(limit: .max)
      let done = runningEffectCount == 0 && !queue.hasPending
      queue.unlockConsumer()
      if done || Task.isCancelled { return }
      if let registry = registryCell.withExisting({ $0 }) { await registry.waitUntilIdle() }
    }
  }

  /// Reduces what is queued now, and starts the effects left collected, with the lock
  /// (``StoreTask/finish()``, once its tasks ended: the actions they sent are in the queue, or
  /// reduced already by another holder; a registry's eviction, before it looks at the effects).
  @usableFromInline
  func settle(isolation: isolated any StoreIsolation) async {
    await lockOnExecutor(isolation: isolation)
    if queue.hasPending { _ = drainLocked(limit: .max) }
    // And the effects a producer's pass left collected for the next drain: started here, so
    // that the caller sees them in `runningEffectCount`.
    startCollectedLocked()
    queue.unlockConsumer()
  }

  func shutdown() {
    guard
      shutdownFlag.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged
    else { return }
    queue.close()
    shutDownEffects()
    finishObservers()
  }

  var isShutdown: Bool { shutdownFlag.load(ordering: .relaxed) }

  func cancelEffects() {
    shutDownEffects()
  }

  var runningEffectCount: Int { registryCell.withExisting { $0.count } ?? 0 }

  /// Whether at most one effect task runs (the one that asks, for an effect's `send`).
  @usableFromInline var runsAtMostOneEffect: Bool { runningEffectCount <= 1 }

  deinit {
    // The memory is the queue's, freed with it.
    statePointer.deinitialize(count: 1)
    caseCounts?.release()
  }

  /// The root `Store` was deinitialized: nobody can send to this store any more.
  func storeReleased() {
    queue.close()
    shutDownEffects()
    finishObservers()
  }
}

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
/// Specialization: the per-action path (`enqueueInline`, `drainAvailable`, `reduceTimed`) is
/// `@inlinable`, and `Store.init` (also `@inlinable`) installs it as closures created in the
/// caller's module, so that it is compiled for the concrete reducer: unspecialized, the path
/// spends most of its time looking up generic metadata (`Effect<Action>`, tuples), several
/// times the cost of the reduce itself (`spool bench counter-send`).
@usableFromInline
final class RootCore<R: Reducer & SendableMetatype>: StoreCore, ActionQueueDrainer,
  @unchecked Sendable
where R.State: Sendable {
  // @unchecked Sendable, justified: the state behind `statePointer`, `reducer`, `pendingRuns`,
  // `pendingReserved` and `defaultIdentity` are read and written only by the holder of the queue's
  // consumer lock (every method that touches them is documented "with the consumer lock held", and
  // their callers take it: the drain loop, `finish`, `settle`, the state readers, and producers
  // that reduce on their own thread); the lock is taken with an acquiring CAS and given back with a
  // releasing store, so each holder sees its predecessor's writes. `drainEntry` and
  // `makeEffectSend` are written once by `install`, before any drain starts and before
  // `Store.init` returns, and only read afterwards; `effectSend` is created by the holder of the
  // consumer lock when it first starts an effect (`sendForEffects`), and read only by holders.
  // `dependenciesKey` points at a global `TaskLocal` object that lives as
  // long as the process and is never written through. `queue`, `registryCell`, `observersCell`
  // (one atomic word each, see `LazyReference`), `shutdownFlag` and `drainActivity` synchronize
  // themselves; every other stored property (`isolation`, `effectExecutor`, `instrumentation`,
  // `dependencies`, `reducesOnCaller`, `timesReduces`, `sampleInterval`) is a `let` of a
  // Sendable type. `sampleCountdown` is read and written only by the holder of the consumer
  // lock, as the state is.

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

  /// The state, in the queue's allocation (``ActionQueue/trailingStorage(alignment:)``): a stored property
  /// of a class would be checked for exclusive access at run time on every action. Protected
  /// by the consumer lock.
  @usableFromInline let statePointer: UnsafeMutablePointer<State>
  /// Called with the consumer lock held only (read-only after init).
  @usableFromInline let reducer: R
  /// The dependencies the reducer runs with. Read-only after init.
  @usableFromInline let dependencies: DependencyValues
  /// `DependencyValues.currentKey`, looked up once.
  @usableFromInline let dependenciesKey: UnsafeRawPointer
  @usableFromInline let shutdownFlag = Atomic<Bool>(false)
  /// Whether the dependencies task-local's default value is bit for bit `dependencies`, once
  /// `send` has needed to know. Protected by the consumer lock; read on every action a
  /// producer reduces on its own thread, so not checked for exclusive access at run time.
  @exclusivity(unchecked) @usableFromInline var defaultIdentity: Bool?

  /// The specialized drain step: reduces up to `limit` queued actions, returns how many.
  /// Set once by `install`, before any drain starts.
  @usableFromInline var drainEntry: ((RootCore, Int) -> Int)?

  /// The `Send` every effect of this store gets: it enqueues. Created when the store first
  /// starts an effect (a store that never does holds none), by the holder of the consumer lock
  /// (``sendForEffects``), which alone reads and writes it.
  @usableFromInline var effectSend: Send<Action>?

  /// Sets ``effectSend``: set once by `install`, in the caller's module, so that the `Send`
  /// is specialized. It captures nothing, so that setting it allocates nothing: not even
  /// `Self`, whose metadata a closure would capture in a context (24 bytes in every store);
  /// it names `RootCore` instead.
  @usableFromInline var makeEffectSend: ((RootCore) -> Void)?

  /// The runs of the current drain pass waiting to start (``startEffect(_:of:collect:)``),
  /// `nil` when none is. Protected by the consumer lock. Not checked for exclusive access
  /// at run time: only the lock's holder touches it, never re-entrantly.
  @exclusivity(unchecked) @usableFromInline var pendingRuns: EffectBatch<Action>?

  /// The `.run(…).cancellable(id:cancelInFlight:)` effects of the current drain pass, reserved
  /// in the registry (so that a cancellation by ID or a later `cancelInFlight` reaches them)
  /// but without a task yet: one cancelled before the pass ends never gets one (a task per
  /// restart made restarts about half as fast: `spool bench cancellation`). Protected by the
  /// consumer lock, like ``pendingRuns``; empty when no pass has left effects collected
  /// (``passOnCaller(_:)``).
  @exclusivity(unchecked) @usableFromInline var pendingReserved: [PendingReservedEffect] = []

  /// An effect in ``pendingReserved``: its registration token, its ID, its run, and the action
  /// whose reduce returned it (for instrumentation).
  @usableFromInline
  struct PendingReservedEffect {
    @usableFromInline let token: Int
    @usableFromInline let id: AnyHashableSendable
    @usableFromInline let box: Effect<Action>.Box
    @usableFromInline let origin: Action

    @inlinable
    init(token: Int, id: AnyHashableSendable, box: Effect<Action>.Box, origin: Action) {
      self.token = token
      self.id = id
      self.box = box
      self.origin = origin
    }
  }

  /// How many times a drain looks for more work before it ends (a few microseconds).
  ///
  /// None on an executor the store was given: there the drain would hold a thread that has
  /// other work (SpoolIO's event loop reaps completions between jobs), so it ends at once.
  var idleSpinLimit: Int { reducesOnCaller ? 4_000 : 0 }

  /// How many actions the drain loop reduces before it lets other jobs on the executor run:
  /// 65,536 on the store's own queue, 256 on an executor it was given (between two batches,
  /// SpoolIO's event loop reaps the completions that the batch's effects wait for).
  var drainBatchLimit: Int { reducesOnCaller ? 65_536 : 256 }

  /// Whether a producer that finds the store idle reduces on its own thread (``enqueueInline(_:)``,
  /// ``trySendOnCaller(_:)``). Not on an executor the store was given: there, reduce and
  /// effects must run on that executor's thread (SpoolIO's loop thread).
  @usableFromInline let reducesOnCaller: Bool

  /// The instrumentation's ``StoreInstrumentation/timesReduces``, read once: without it, an
  /// action costs one clock read (its enqueue time) instead of up to three. Declared last, so
  /// that the fields every action reads keep their places in the object.
  @usableFromInline let timesReduces: Bool

  /// One action in this many is timed (``StoreInstrumentation/timingSampling``); 1 without
  /// instrumentation, without ``timesReduces``, and when every action is timed. 32 bits, as
  /// is the countdown: the two fit in the padding after ``timesReduces`` and an idle store
  /// keeps its size class.
  @usableFromInline let sampleInterval: UInt32

  /// Actions reduced on a producer's thread or sent by an effect until the next timed one
  /// (``reduceIsTimed()``); 1 when the next is timed. Protected by the consumer lock, and only
  /// touched by its holder, never re-entrantly.
  @exclusivity(unchecked) @usableFromInline var sampleCountdown: UInt32 = 1

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
    self.sampleInterval =
      timesReduces ? UInt32(clamping: max(1, instrumentation?.timingSampling.interval ?? 1)) : 1
  }

  /// Installs the specialized drain step and lets the queue start drains. Called from the
  /// inlinable `Store.init`, so that the closure is compiled for the concrete reducer.
  @inlinable
  func install() {
    drainEntry = { core, limit in core.drainAvailable(limit: limit) }
    // The queue, not the core: the core keeps this `Send`, and effects that outlive the store
    // must not keep the store's state alive. Nor a weak reference to the core: any weak
    // reference gives an object a side table, and then every retain and release of it takes
    // the runtime's slow path (a measurable part of `spool bench effects`). An effect that
    // sends after the store shut down is reported, as a producer's `enqueue` is.
    makeEffectSend = { core in
      let queue = core.queue
      let instrumentation = core.instrumentation
      let sampleInterval = core.sampleInterval
      core.effectSend = Send { action in
        RootCore.enqueue(
          action, into: queue, instrumentation: instrumentation, sampleInterval: sampleInterval)
      }
    }
    attachToQueue()
  }

  /// The `Send` for this store's effects (``effectSend``), created on first use; with the
  /// consumer lock held.
  @inlinable
  var sendForEffects: Send<Action> {
    if let send = effectSend { return send }
    guard let make = makeEffectSend else {
      preconditionFailure("Internal inconsistency: an effect started before install()")
    }
    make(self)
    return effectSend.unsafelyUnwrapped
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

  /// Offers the state to every observer; with the consumer lock held.
  @inlinable
  func publishState() {
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

  // MARK: Producers

  /// How many queued actions a producer that reduces on its own thread takes along, before
  /// and after its own: it serves the actions others pushed meanwhile and the ones its effects
  /// sent back (flat combining), and then returns, leaving the rest to the drain loop.
  @usableFromInline static var callerDrainLimit: Int { 256 }

  /// `Store.enqueue`: reduces `action` right here when the store is idle (the caller takes
  /// the consumer lock, as a plain actor call runs inline when the actor is free), else
  /// pushes it for the holder of the lock or the drain loop.
  ///
  /// Budget without instrumentation, idle unobserved store, `.none` effect: one CAS and one
  /// store (the lock), one task-local lookup (the dependencies), one thread-local read (the
  /// backoff), the reduce, about ten loads; no clock read, no allocation, no reference
  /// counting (`spool bench counter` against `locked-class`).
  @inlinable @inline(__always)
  func enqueueInline(_ action: Action) {
    // An observed store queues instead: its drain loop publishes once per batch, where a pass
    // per action would publish (and wake the observers) once per action.
    //
    // The hints lay the idle-store path out as one straight run of code, the other paths out
    // of line: placed across more cache lines, its speed moved with where the linker put it
    // (Profiles/README.md, "Code placement").
    if _fastPath(reducesOnCaller && !isObserved) {
      let backoff = cspool_lock_backoff_get()
      if _fastPath(backoff == 0) {
        if _fastPath(queue.tryLockConsumer()) {
          if _fastPath(reduceOnCaller(action)) { return }
        } else {
          // Contended: the holder (another producer or the drain loop) takes what is pushed.
          cspool_lock_backoff_set(Self.contendedPushes)
        }
      } else {
        cspool_lock_backoff_set(backoff &- 1)
      }
    }
    Self.enqueue(
      action, into: queue, instrumentation: instrumentation, sampleInterval: sampleInterval)
  }

  /// How many actions a producer that found the store held pushes before it tries the lock
  /// again (`cspool_lock_backoff`): fewer tries of a contended lock's cache line, and the
  /// holder serves the pushes in batches (`spool bench fan-in`).
  @usableFromInline static var contendedPushes: UInt32 { 32 }

  /// Reduces `action` on the caller's thread, with the consumer lock held, after the actions
  /// queued before it; then unlocks. Returns `false`, unlocked and without reducing, when the
  /// store is shut down or more is queued than ``callerDrainLimit``: the caller pushes the
  /// action instead, behind what is queued, so that each producer's order holds.
  @inlinable @inline(__always)
  func reduceOnCaller(_ action: Action) -> Bool {
    if _slowPath(queue.isClosedHint) {
      queue.unlockConsumer()
      return false
    }
    if _fastPath(
      DependencyValues.currentIsIdentical(
        to: dependencies, key: dependenciesKey,
        defaultIsIdentical: { defaultDependenciesAreIdentical }))
    {
      return passOnCaller(action)
    }
    return DependencyValues.$_current.withValue(dependencies) { passOnCaller(action) }
  }

  /// One pass of a producer holding the consumer lock: what was queued, its action, what its
  /// effects sent back; unlocks.
  ///
  /// The effects its action returned stay collected (``pendingRuns``, ``pendingReserved``)
  /// when nothing else is to be done: the next passes add to them, so that a burst of
  /// actions from one producer starts its effects in batches, as a drain pass does (one task
  /// for the runs that end without suspending; no task for a restart replaced before it
  /// started), and the unlock starts a drain to start them if no pass comes first.
  @inlinable @inline(__always)
  func passOnCaller(_ action: Action) -> Bool {
    if _slowPath(queue.hasPending) && !drainBeforeCaller() { return false }
    reduceCollecting(action, enqueuedAt: 0)
    // Round trips that never suspended: their effects pushed while this caller held the lock.
    if _slowPath(queue.hasPending) {
      drainAfterCaller(bindingDependencies: false)
      return true
    }
    if _slowPath(isObserved) { publishState() }
    if pendingRuns == nil && pendingReserved.isEmpty {
      queue.unlockConsumer()
    } else {
      queue.markWorkOwed()
      queue.unlockConsumer(wakingForLeftovers: true)
    }
    return true
  }

  /// Ends the pass of a producer whose effects (run on its thread) pushed actions: reduces up
  /// to ``callerDrainLimit`` of what is queued and unlocks, starting a drain for the rest
  /// (a holder's own pushes did not start one).
  @usableFromInline @inline(never)
  func drainAfterCaller(bindingDependencies: Bool) {
    guard let drainEntry else {
      preconditionFailure("Internal inconsistency: a store was reduced before install()")
    }
    if bindingDependencies {
      DependencyValues.$_current.withValue(dependencies) {
        _ = drainEntry(self, Self.callerDrainLimit)
      }
    } else {
      _ = drainEntry(self, Self.callerDrainLimit)
    }
    queue.unlockConsumer(wakingForLeftovers: queue.hasPending)
  }

  /// Reduces what was queued before a producer's own action; `false`, unlocked, when more is
  /// left than ``callerDrainLimit``.
  @usableFromInline @inline(never)
  func drainBeforeCaller() -> Bool {
    _ = drainEntry.unsafelyUnwrapped(self, Self.callerDrainLimit)
    if queue.hasPending {
      queue.unlockConsumer(wakingForLeftovers: true)
      return false
    }
    return true
  }

  /// Pushes `action` (stamped when instrumented) or reports that the store has shut down.
  ///
  /// With sampling (`sampleInterval` above 1), a push is stamped with probability
  /// 1/`sampleInterval`, drawn from the calling thread's generator: the stamp is what tells
  /// the reduce to time the action, so that an action whose queue wait was not measured does
  /// not get a reduce time either, and no clock is read for it on either side of the queue.
  /// Per thread, so that producers share no cache line for it; random rather than every Nth
  /// push, so that a thread pushing to several stores in turn samples each of them alike.
  @inlinable
  static func enqueue(
    _ action: Action, into queue: ActionQueue<QueuedAction<Action>>,
    instrumentation: (any StoreInstrumentation<Action>)?, sampleInterval: UInt32
  ) {
    var time: UInt64 = 0
    if instrumentation != nil {
      // Timed when the draw falls in the lowest 1/`sampleInterval` of its range.
      if _fastPath(sampleInterval == 1)
        || cspool_sample_random().multipliedFullWidth(by: UInt64(sampleInterval)).high == 0
      {
        time = SpoolTime.now()
      }
    }
    if !queue.push(QueuedAction(action: action, enqueuedAt: time)) {
      reportEnqueueAfterShutdown(action)
    }
  }

  @usableFromInline
  static func reportEnqueueAfterShutdown(_ action: Action) {
    StoreIssueContext.misuse(action).bound {
      reportIssue(
        """
        An action was enqueued to a store of "\(R.self)" after it was shut down: \
        \(String(customDumping: action))

        Actions sent after "shutdown()" are dropped.
        """
      )
    }
  }

  // MARK: Executor

  /// One drain: reduces until the queue is empty, then returns (``ActionQueue/endDrain()``);
  /// started by whoever turned the queue from idle to busy, so at most one runs.
  func drainLoop(isolation: isolated any StoreIsolation) async {
    guard drainEntry != nil else {
      preconditionFailure("Internal inconsistency: a drain started before install()")
    }
    let running = drainActivity.add(Self.drainStarted, ordering: .relaxed).newValue
    if running & Self.drainsRunningMask > 1 {
      drainActivity.bitwiseOr(Self.drainsOverlappedBit, ordering: .relaxed)
    }
    defer { drainActivity.subtract(1, ordering: .relaxed) }
    while true {
      // A producer reducing on its own thread holds the lock: it takes what it pushes itself,
      // and ending the drain looks again once it unlocks. A closed queue is not drained: its
      // actions are dropped.
      if !queue.isClosedHint, queue.tryLockConsumer() {
        let reduced = drainLocked(limit: drainBatchLimit)
        queue.resizeIfOverflowed()
        queue.publishConsumed()
        let head = queue.consumerHead
        queue.unlockConsumer()
        if reduced == drainBatchLimit {
          // Let `send` calls and other jobs waiting for the executor run between batches.
          await Task.yield()
          continue
        }
        // A producer in the middle of a burst is usually a few nanoseconds behind, while
        // starting a drain means scheduling a task on the global executor, during which the
        // ring can fill and producers spill into the overflow. So look again for a moment
        // first.
        if queue.awaitPending(spins: idleSpinLimit, after: head) { continue }
      }
      switch queue.endDrain() {
      case .keepDraining:
        continue
      case .ended:
        return
      case .closed:
        // Shut down. Effects that passes on producers' threads collected and nobody started
        // are dropped, once their pass has unlocked; and no drain starts again.
        await lockOnExecutor(isolation: isolation)
        dropPendingEffects()
        queue.unlockConsumer()
        queue.releaseDrainer()
        return
      }
    }
  }

  /// What ``drainLoop(isolation:)`` adds to ``drainActivity`` as it starts (it subtracts 1
  /// as it returns).
  static var drainStarted: Int { 1 << 32 | 1 }
  static var drainsRunningMask: Int { 1 << 31 - 1 }
  static var drainsOverlappedBit: Int { 1 << 31 }

  /// How many drains have started (bits 32 and up), how many run now (bits 0 to 30), and
  /// whether two ever ran at once (bit 31, which must never be set): for tests of the
  /// idle→busy protocol. One relaxed add when a drain starts, one when it returns.
  let drainActivity = Atomic<Int>(0)

  /// How many drains have started since the store was created.
  package var drainsStarted: Int { drainActivity.load(ordering: .relaxed) >> 32 }

  /// How many drains run now: 0 or 1.
  package var drainsRunning: Int {
    drainActivity.load(ordering: .relaxed) & Self.drainsRunningMask
  }

  /// Whether two drains ever ran at the same time (never, if the idle→busy protocol holds).
  package var drainsOverlapped: Bool {
    drainActivity.load(ordering: .relaxed) & Self.drainsOverlappedBit != 0
  }

  /// Waits until this task holds the consumer lock; isolated to the store's executor, for
  /// the callers that must not fail (`send` when the store is busy, `finish`, state reads).
  ///
  /// Holders other than the drain loop (which runs on this executor too) are producers on
  /// their own threads, for a bounded pass: spin a little, then yield, which also lets a
  /// holder on this very thread (an effect of its pass that awaits the store) go on.
  @usableFromInline
  func lockOnExecutor(isolation: isolated any StoreIsolation) async {
    var attempts = 0
    while !queue.tryLockConsumer() {
      attempts &+= 1
      if attempts < 128 { continue }
      attempts = 0
      await Task.yield()
    }
  }

  /// Reduces up to `limit` queued actions, with the consumer lock held. Returns how many.
  ///
  /// Budget per action without instrumentation, for a reducer that returns `.none`: one pop
  /// (two loads, one store), one reduce call, one check of the effect; no clock read, no
  /// allocation. With instrumentation: one clock read and one recorder call more; sampled,
  /// two clock reads for a timed action (its predecessor was not timed) and none for the
  /// others.
  @inlinable
  func drainAvailable(limit: Int) -> Int {
    var reduced = 0
    if let instrumentation, _slowPath(sampleInterval != 1) {
      // The push decided (``enqueue(_:into:instrumentation:sampleInterval:)``): an action
      // with an enqueue time is timed, the others are counted.
      while reduced < limit, let queued = queue.pop() {
        let effect: Effect<Action>
        if queued.enqueuedAt == 0 {
          effect = reducer.reduce(into: &statePointer.pointee, action: queued.action)
          instrumentation.actionCounted(queued.action)
        } else {
          let start = SpoolTime.now()
          effect = reducer.reduce(into: &statePointer.pointee, action: queued.action)
          instrumentation.actionReduced(
            queued.action, enqueuedAt: queued.enqueuedAt, startedAt: start,
            endedAt: SpoolTime.now())
        }
        if !effect.isNone { _ = startEffect(effect, of: queued.action, collect: false) }
        reduced &+= 1
      }
    } else if let instrumentation, !timesReduces {
      // No clock read: the action's enqueue time stands for its reduce.
      while reduced < limit, let queued = queue.pop() {
        let effect = reducer.reduce(into: &statePointer.pointee, action: queued.action)
        let time = queued.enqueuedAt
        instrumentation.actionReduced(
          queued.action, enqueuedAt: time, startedAt: time, endedAt: time)
        if !effect.isNone { _ = startEffect(effect, of: queued.action, collect: false) }
        reduced &+= 1
      }
    } else if let instrumentation {
      // One clock read per action: the end of one reduce is the start of the next.
      var now = SpoolTime.now()
      while reduced < limit, let queued = queue.pop() {
        let start = now
        let effect = reducer.reduce(into: &statePointer.pointee, action: queued.action)
        now = SpoolTime.now()
        instrumentation.actionReduced(
          queued.action, enqueuedAt: queued.enqueuedAt, startedAt: start, endedAt: now
        )
        if !effect.isNone {
          _ = startEffect(effect, of: queued.action, collect: false)
          now = SpoolTime.now()
        }
        reduced &+= 1
      }
    } else {
      while reduced < limit, let queued = queue.pop() {
        reduceCollecting(queued.action, enqueuedAt: queued.enqueuedAt)
        reduced &+= 1
      }
    }
    startPendingEffects()
    if reduced > 0, isObserved { publishState() }
    return reduced
  }

  /// `Store.send` when the store is idle: reduces `action` on the caller's thread with the
  /// consumer lock, after everything already queued; `nil` when the lock is held (the caller
  /// then waits for it on the store's executor, ``lockOnExecutor(isolation:)``).
  ///
  /// Budget as ``enqueueInline(_:)``'s, plus the ``StoreTask`` (no allocation when the
  /// action started no effect): `spool bench counter-send` against `plain-actor`.
  @inlinable
  func trySendOnCaller(_ action: Action) -> StoreTask? {
    guard reducesOnCaller && queue.tryLockConsumer() else { return nil }
    return sendLocked(action)
  }

  /// A `send` by a holder of the consumer lock: reduces, takes what its effects sent back
  /// (up to ``callerDrainLimit``), unlocks.
  @inlinable @inline(__always)
  func sendLocked(_ action: Action) -> StoreTask {
    let task = sendInline(action)
    if queue.hasPending {
      drainAfterCaller(bindingDependencies: true)
    } else {
      queue.unlockConsumer()
    }
    return task
  }

  /// Reduces `action` after everything already queued, with the consumer lock held.
  @inlinable
  func sendInline(_ action: Action) -> StoreTask {
    guard !shutdownFlag.load(ordering: .relaxed) else {
      reportSendAfterShutdown(action)
      return StoreTask(tasks: [])
    }
    // Pushing the store's dependencies costs a task-local push per send. When the sender's
    // task already has exactly these dependencies (the same storage, bit for bit: a store
    // made without `withDependencies:` and sent to from a task without overrides), the push
    // changes nothing and is skipped.
    if DependencyValues.currentIsIdentical(
      to: dependencies, key: dependenciesKey,
      defaultIsIdentical: { defaultDependenciesAreIdentical })
    {
      return sendWithCurrentDependencies(action)
    }
    return DependencyValues.$_current.withValue(dependencies) {
      sendWithCurrentDependencies(action)
    }
  }

  /// Whether a task without a dependencies binding already sees `dependencies`; asked only
  /// from such a task (`DependencyValues._current` is then the default value). With the
  /// consumer lock held.
  @inlinable
  var defaultDependenciesAreIdentical: Bool {
    if let known = defaultIdentity { return known }
    return learnDefaultIdentity()
  }

  @usableFromInline
  func learnDefaultIdentity() -> Bool {
    let known = DependencyValues._current.isIdentical(to: dependencies)
    defaultIdentity = known
    return known
  }

  @inlinable
  func sendWithCurrentDependencies(_ action: Action) -> StoreTask {
    // Everything enqueued before this send comes first, including a slot another producer has
    // claimed but not written yet (`pop` does not wait for one): the sender's own earlier
    // enqueues may sit behind it. `StressTests` caught the reordering when send did not wait.
    if queue.hasPending { drainEverything() }
    let tasks = processInline(action, enqueuedAt: 0, collect: true)
    // Effects that passes on producers' threads left collected start now, as they would
    // at the end of a drain pass.
    startPendingEffects()
    if isObserved { publishState() }
    return StoreTask(tasks: tasks) { [self] in await settle(isolation: isolation) }
  }

  /// Reduces until nothing is pending, waiting for claimed slots to be written (a few
  /// instructions away, unless their producer was preempted: hence the yield).
  @inlinable
  func drainEverything() {
    var idleRounds = 0
    repeat {
      if drainAvailable(limit: .max) > 0 {
        idleRounds = 0
      } else {
        idleRounds &+= 1
        if idleRounds > 64 { sched_yield() }
      }
    } while queue.hasPending
  }

  @usableFromInline
  func reportSendAfterShutdown(_ action: Action) {
    StoreIssueContext.misuse(action).bound {
      reportIssue(
        """
        An action was sent to a store of "\(R.self)" after it was shut down: \
        \(String(customDumping: action))

        Actions sent after "shutdown()" are dropped.
        """
      )
    }
  }

  /// Reduces `action` and starts the effect it returned; returns the started tasks when
  /// `collect` is true (for ``StoreTask``), none otherwise.
  @inlinable
  func processInline(
    _ action: Action, enqueuedAt: UInt64, collect: Bool
  ) -> [Task<Void, any Error>] {
    let effect = reduceTimed(action, enqueuedAt: enqueuedAt)
    if effect.isNone { return [] }
    return startEffect(effect, of: action, collect: collect)
  }

  /// Reduces `action`, reporting it to the instrumentation if there is one.
  ///
  /// `enqueuedAt` is 0 for an action that was not queued (`send`, a producer's pass): with
  /// instrumentation, it waited for nothing, and its start is its enqueue time (two clock
  /// reads per action, not three). Sampled, an action that ``reduceIsTimed()`` passes over
  /// is counted, with no clock read.
  @inlinable @inline(__always)
  func reduceTimed(_ action: Action, enqueuedAt: UInt64) -> Effect<Action> {
    guard let instrumentation else {
      return reducer.reduce(into: &statePointer.pointee, action: action)
    }
    if _slowPath(sampleInterval != 1) && enqueuedAt == 0 && !reduceIsTimed() {
      let effect = reducer.reduce(into: &statePointer.pointee, action: action)
      instrumentation.actionCounted(action)
      return effect
    }
    guard timesReduces else {
      let effect = reducer.reduce(into: &statePointer.pointee, action: action)
      let time = enqueuedAt == 0 ? SpoolTime.now() : enqueuedAt
      instrumentation.actionReduced(action, enqueuedAt: time, startedAt: time, endedAt: time)
      return effect
    }
    let start = SpoolTime.now()
    let effect = reducer.reduce(into: &statePointer.pointee, action: action)
    instrumentation.actionReduced(
      action, enqueuedAt: enqueuedAt == 0 ? start : enqueuedAt, startedAt: start,
      endedAt: SpoolTime.now()
    )
    return effect
  }

  /// Whether the holder of the consumer lock times the action it reduces next, with
  /// sampling: every ``sampleInterval``th of the actions that were not queued (reduced on a
  /// producer's thread, sent by `send`, or sent synchronously by an effect). With the
  /// consumer lock held.
  @inlinable @inline(__always)
  func reduceIsTimed() -> Bool {
    if sampleCountdown > 1 {
      sampleCountdown &-= 1
      return false
    }
    sampleCountdown = sampleInterval
    return true
  }

  /// ``processInline(_:enqueuedAt:collect:)`` for an action from the queue or a producer's
  /// pass, whose effects are collected: no array of tasks to return and release per action.
  @inlinable @inline(__always)
  func reduceCollecting(_ action: Action, enqueuedAt: UInt64) {
    let effect = reduceTimed(action, enqueuedAt: enqueuedAt)
    if effect.isNone { return }
    _ = startEffect(effect, of: action, collect: false)
  }

  /// How many plain runs the drain loop collects before it starts them in one task
  /// (``EffectRunner``): a run waits at most this many reduces to start.
  @usableFromInline static var runBatchLimit: Int { 64 }

  /// Starts `effect`, or collects it to start at the end of the drain pass. For an action
  /// from the queue (not `collect`ed for a ``StoreTask``), with or without instrumentation, a
  /// run without a priority of its own goes to ``pendingRuns``, to start with the pass's other
  /// runs in one task (``EffectRunner`` says why), and `.run(…).cancellable(id:cancelInFlight:)`
  /// is reserved under its ID and goes to ``pendingReserved``, so that a restart that replaces
  /// it before the pass ends costs no task. The collected runs start before anything else
  /// starts or cancels an effect, so that effects start and are cancelled in the order their
  /// reduces returned them (the reserved ones are reachable by their IDs already). Otherwise a
  /// lone `.run` and the cancellable shape start here, specialized for the reducer; anything
  /// else goes through the effect planner (`runEffect`), which is generic code whose metadata
  /// lookups would be a large part of every effect's cost (`spool bench effects`).
  @inlinable
  func startEffect(
    _ effect: Effect<Action>, of action: Action, collect: Bool
  ) -> [Task<Void, any Error>] {
    guard let box = effect.box else { return [] }
    if box.isRun {
      let priority = box.runPriority
      if !collect && priority == nil {
        if pendingRuns == nil {
          pendingRuns = EffectBatch(
            capacity: Self.runBatchLimit, keepsOrigins: instrumentation != nil)
        }
        if pendingRuns.unsafelyUnwrapped.append(box, origin: action) == Self.runBatchLimit {
          startPendingRuns()
        }
        return []
      }
      if pendingRuns != nil { startPendingRuns() }
      let task = startWork(box.runWork, priority: priority, origin: action, ids: [])
      return collect ? [task] : []
    }
    // `.run { … }.cancellable(id:cancelInFlight:)`, the other common shape.
    if case let .cancellable(id, cancelInFlight, inner) = box.operation,
      let innerBox = inner.box, innerBox.isRun
    {
      // Collected runs start first: one may register work under `id` that this one replaces.
      if pendingRuns != nil { startPendingRuns() }
      if !collect {
        let token = registry.reserve(ids: [id], replacing: cancelInFlight ? id : nil)
        pendingReserved.append(
          PendingReservedEffect(token: token, id: id, box: innerBox, origin: action))
        if pendingReserved.count == Self.runBatchLimit { startPendingReserved() }
        return []
      }
      let task = startWork(
        innerBox.runWork, priority: innerBox.runPriority, origin: action, ids: [id],
        replacing: cancelInFlight ? id : nil)
      return collect ? [task] : []
    }
    if pendingRuns != nil { startPendingRuns() }
    return runEffect(effect, of: action)
  }

  /// Starts the runs collected in ``pendingRuns``, in order, in as few tasks as their
  /// suspensions allow (``EffectRunner``); with the consumer lock held.
  @inlinable
  func startPendingRuns() {
    let send = sendForEffects
    guard let batch = pendingRuns else { return }
    pendingRuns = nil
    let registry = self.registry
    var next = 0
    while next < batch.count {
      let start = registry.beginImmediateStart()
      let runner = EffectRunner(
        batch: batch, from: next, send: send, registry: registry,
        instrumentation: instrumentation, startID: start.id)
      let task = registry.makeTask(priority: nil, ids: []) { await runner.run() }
      registry.endImmediateStart(start, task: task)
      next = runner.seal()
    }
  }

  /// Starts the task of an effect reserved under `token` (and `ids`) in the registry.
  @inlinable
  func startReserved(
    _ work: @escaping Effect<Action>.Work, priority: TaskPriority?, ids: [AnyHashableSendable],
    token: Int, send: Send<Action>
  ) -> Task<Void, any Error> {
    let registry = self.registry
    let task = registry.makeTask(priority: priority, ids: ids) {
      defer { registry.finished(token) }
      _ = await registry.withCurrent { await work(send) }
    }
    registry.attach(task, to: token)
    return task
  }

  /// Creates the tasks of the effects in ``pendingReserved``, in order, except those cancelled
  /// since they were reserved (by their ID, or by a shutdown): those never start; with the
  /// consumer lock held.
  @inlinable
  func startPendingReserved() {
    let send = sendForEffects
    for pending in pendingReserved {
      guard registry.shouldStart(pending.token) else {
        // Still an effect of its action for instrumentation: started and cancelled at once,
        // before its task existed.
        if let instrumentation {
          let now = SpoolTime.now()
          instrumentation.effectStarted(by: pending.origin, at: now)
          instrumentation.effectEnded(
            by: pending.origin, startedAt: now, endedAt: now, outcome: .cancelled)
        }
        continue
      }
      _ = startReserved(
        timed(pending.box.runWork, by: pending.origin), priority: pending.box.runPriority,
        ids: [pending.id], token: pending.token, send: send)
    }
    pendingReserved.removeAll(keepingCapacity: true)
  }

  /// Starts every effect the drain pass has collected (at its end): the reserved ones, then
  /// the runs.
  @inlinable
  func startPendingEffects() {
    if !pendingReserved.isEmpty { startPendingReserved() }
    if pendingRuns != nil { startPendingRuns() }
    queue.clearWorkOwed()
  }

  /// Forgets the effects collected but not started, when the store has shut down and its drain
  /// loop ends: they count as cancelled before they started (a reserved one gives its slot
  /// back, so that `finish()` does not wait for it). With the consumer lock held.
  func dropPendingEffects() {
    pendingRuns = nil
    for pending in pendingReserved { _ = registry.shouldStart(pending.token) }
    pendingReserved.removeAll()
    queue.clearWorkOwed()
  }

  /// Starts the work of a `.run` effect in a task registered under `ids`, after cancelling the
  /// tasks under `replacing` (`cancelInFlight`).
  @inlinable
  func startWork(
    _ work: @escaping Effect<Action>.Work,
    priority: TaskPriority?,
    origin: Action,
    ids: [AnyHashableSendable],
    replacing: AnyHashableSendable? = nil
  ) -> Task<Void, any Error> {
    let send = sendForEffects
    let work = timed(work, by: origin)
    // `registry.spawn` written out, so that the task's closure is the only allocation besides
    // the task itself (spawn's wrapper closure would be another).
    let registry = self.registry
    if registry.startsImmediately && ids.isEmpty {
      let start = registry.beginImmediateStart()
      let task = registry.makeTask(priority: priority, ids: []) {
        defer { registry.immediateEffectEnded(start.id) }
        _ = await registry.withCurrent { await work(send) }
      }
      registry.endImmediateStart(start, task: task)
      return task
    }
    let token = registry.reserve(ids: ids, replacing: replacing)
    return startReserved(work, priority: priority, ids: ids, token: token, send: send)
  }

  /// `work` as it runs in a store with instrumentation: reported as an effect of `origin`,
  /// started now and ended with its outcome; `work` itself without instrumentation.
  @inlinable
  func timed(_ work: @escaping Effect<Action>.Work, by origin: Action) -> Effect<Action>.Work {
    guard let instrumentation else { return work }
    let startedAt = SpoolTime.now()
    instrumentation.effectStarted(by: origin, at: startedAt)
    return { send in
      let outcome = await work(send).resolved()
      instrumentation.effectEnded(
        by: origin, startedAt: startedAt, endedAt: SpoolTime.now(), outcome: outcome)
      return outcome
    }
  }

  /// Carries out `effect`: starts its tasks, then reduces the actions it sent synchronously
  /// (first in, first out) and carries out their effects; returns the started tasks.
  @usableFromInline
  func runEffect(_ effect: Effect<Action>, of action: Action) -> [Task<Void, any Error>] {
    var tasks: [Task<Void, any Error>] = []
    var pending = [(action, effect)]
    var index = 0
    while index < pending.count {
      let (origin, effect) = pending[index]
      index += 1
      var plan = EffectPlan<Action>()
      plan.add(effect, registry: registry)
      start(plan, origin: origin, tasks: &tasks)
      for sent in plan.sends {
        let next = reduceSent(sent)
        if next.isNone { continue }
        pending.append((sent, next))
      }
    }
    return tasks
  }

  /// Reduces an action an effect sent synchronously: it waited for nothing.
  private func reduceSent(_ action: Action) -> Effect<Action> {
    guard let instrumentation else { return reducer.reduce(into: &statePointer.pointee, action: action) }
    if sampleInterval != 1 && !reduceIsTimed() {
      let effect = reducer.reduce(into: &statePointer.pointee, action: action)
      instrumentation.actionCounted(action)
      return effect
    }
    let start = SpoolTime.now()
    let effect = reducer.reduce(into: &statePointer.pointee, action: action)
    instrumentation.actionReduced(
      action, enqueuedAt: start, startedAt: start, endedAt: timesReduces ? SpoolTime.now() : start
    )
    return effect
  }

  private func start(
    _ plan: EffectPlan<Action>,
    origin: Action,
    tasks: inout [Task<Void, any Error>]
  ) {
    guard plan.hasTasks else { return }
    let send = sendForEffects
    if !plan.unregistered.isEmpty {
      let task = spawn(.merge(plan.unregistered), ids: [], origin: origin, send: send)
      tasks.append(task)
    }
    for (ids, effect) in plan.registered {
      let task = spawn(effect, ids: ids, origin: origin, send: send)
      tasks.append(task)
    }
  }

  private func spawn(
    _ effect: Effect<Action>, ids: [AnyHashableSendable], origin: Action, send: Send<Action>
  ) -> Task<Void, any Error> {
    let registry = self.registry
    guard let instrumentation else {
      return registry.spawn(ids: ids, priority: effect.priority) {
        _ = await effect.execute(send: send, registry: registry)
      }
    }
    let startedAt = SpoolTime.now()
    instrumentation.effectStarted(by: origin, at: startedAt)
    return registry.spawn(ids: ids, priority: effect.priority) {
      let outcome = await effect.execute(send: send, registry: registry)
      instrumentation.effectEnded(
        by: origin, startedAt: startedAt, endedAt: SpoolTime.now(), outcome: outcome
      )
    }
  }

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

  /// Reduces what is queued now, with the lock (``StoreTask/finish()``, once its tasks ended:
  /// the actions they sent are in the queue, or reduced already by another holder).
  @usableFromInline
  func settle(isolation: isolated any StoreIsolation) async {
    await lockOnExecutor(isolation: isolation)
    if queue.hasPending { _ = drainLocked(limit: .max) }
    queue.unlockConsumer()
  }

  /// Reduces up to `limit` queued actions, and starts the effects collected; with the lock
  /// held. Returns how many it reduced.
  ///
  /// Both task-locals are bound for the whole batch: the reducer reads the dependencies, and
  /// effect tasks copy both bindings when they start, so that they need not push them again.
  func drainLocked(limit: Int) -> Int {
    guard let drainEntry else { return 0 }
    return DependencyValues.$_current.withValue(dependencies) {
      EffectRegistry.currentLocal.withValue(registry) { drainEntry(self, limit) }
    }
  }

  /// `Store.send` when ``trySendOnCaller(_:)`` found the store busy, or the store runs on an
  /// executor it was given: on the store's executor, once the lock is free.
  @inlinable
  func sendOnExecutor(_ action: Action, isolation: isolated any StoreIsolation) async -> StoreTask {
    await lockOnExecutor(isolation: isolation)
    return sendLocked(action)
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

  deinit {
    // The memory is the queue's, freed with it.
    statePointer.deinitialize(count: 1)
  }

  /// The root `Store` was deinitialized: nobody can send to this store any more.
  func storeReleased() {
    queue.close()
    shutDownEffects()
    finishObservers()
  }
}

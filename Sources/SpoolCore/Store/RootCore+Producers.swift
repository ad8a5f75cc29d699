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

// The producers' path: `enqueue` and `send` from any thread, reducing on the caller's thread
// when the store is idle (the caller takes the consumer lock) and pushing to the queue when not.
extension RootCore {
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
  func enqueue(_ action: Action) {
    // An observed store queues instead: its drain loop publishes once per batch, where a pass
    // per action would publish (and wake the observers) once per action. So does a journaled
    // one (``reducesEnqueuesOnCaller``).
    //
    // The hints lay the idle-store path out as one straight run of code, the other paths out
    // of line: placed across more cache lines, its speed moved with where the linker put it
    // (Profiles/README.md, "Code placement").
    if _fastPath(reducesEnqueuesOnCaller && !isObserved) {
      let backoff = cspool_lock_backoff_get()
      if _fastPath(backoff == 0) {
        if _fastPath(queue.tryLockConsumerUnlessAwaited()) {
          if _fastPath(passUnlocking(action)) { return }
        } else {
          // Contended, or a task waits for the lock: the holder (another producer or the
          // drain loop) takes what is pushed.
          cspool_lock_backoff_set(Self.contendedPushes)
        }
      } else {
        cspool_lock_backoff_set(backoff &- 1)
      }
    }
    Self.enqueue(
      action, into: queue, instrumentation: instrumentation, sampleInterval: sampleInterval)
  }

  /// An effect's `send` into an idle store that runs no other effect: reduces `action` on
  /// the effect's thread, as ``enqueue(_:)`` does for a producer, rather than pushing it and
  /// starting a drain task (a task, a hop, and the drain's idle spin, for each action a
  /// timer sends back). `false` when the caller must push: a drain is scheduled or running,
  /// the lock is held or awaited, the store is observed or shut down, runs other effects, or
  /// more is queued than ``callerDrainLimit``.
  ///
  /// Only with no drain and one effect running: where many effects run, their actions come
  /// in bursts, which a drain takes in batches, starting their effects together; passes on
  /// the effects' threads instead, contending for the lock, made `spool bench effects` slower.
  ///
  /// `core` is unretained (the effect must not keep the store alive): it is touched only
  /// once this thread holds the consumer lock of a queue that was not closed then. The
  /// queue releases its core (``ActionQueue/releaseDrainer()``) only in its last drain,
  /// which starts after the queue closed and takes the consumer lock first; so a holder that
  /// still sees the queue open (the close happens before that drain's unlock, which happens
  /// before this lock) holds a live core, and retains it for the pass.
  @inlinable
  static func passFromEffect(
    _ action: Action, to core: Unmanaged<RootCore>,
    through queue: ActionQueue<QueuedAction<Action>>
  ) -> Bool {
    // A drain that is scheduled or running takes the action with the others it finds; so
    // does the holder of the lock, and the drain that the push then starts.
    guard queue.drainIdle.load(ordering: .relaxed) && queue.tryLockConsumerUnlessAwaited()
    else { return false }
    guard !queue.isClosedHint else {
      queue.unlockConsumer()
      return false
    }
    let core = core.retain().takeRetainedValue()
    guard !core.isObserved && core.runsAtMostOneEffect else {
      queue.unlockConsumer()
      return false
    }
    return core.passUnlocking(action)
  }

  /// How many actions a producer that found the store held pushes before it tries the lock
  /// again (`cspool_lock_backoff`): fewer tries of a contended lock's cache line, and the
  /// holder serves the pushes in batches (`spool bench fan-in`).
  @usableFromInline static var contendedPushes: UInt32 { 32 }

  /// Reduces `action` on the caller's thread after the actions
  /// queued before it; then unlocks. Returns `false`, unlocked and without reducing, when the
  /// store is shut down or more is queued than ``callerDrainLimit``: the caller pushes the
  /// action instead, behind what is queued, so that each producer's order holds.
  @inlinable @inline(__always)
  func passUnlocking(_ action: Action) -> Bool {
    assertConsumerLockHeld()
    if _slowPath(queue.isClosedHint) {
      queue.unlockConsumer()
      return false
    }
    if _fastPath(
      DependencyValues.currentIsIdentical(
        to: dependencies, key: dependenciesKey,
        defaultIsIdentical: { defaultDependenciesAreIdenticalLocked }))
    {
      return passWithDependenciesUnlocking(action)
    }
    return DependencyValues.$_current.withValue(dependencies) {
      passWithDependenciesUnlocking(action)
    }
  }

  /// One pass of a producer holding the consumer lock: what was queued, its action, what its
  /// effects sent back; unlocks. Returns `false`, without reducing, when more was queued than
  /// ``callerDrainLimit``.
  ///
  /// The effects its action returned stay collected (``collected``)
  /// when nothing else is to be done: the next passes add to them, so that a burst of
  /// actions from one producer starts its effects in batches, as a drain pass does (one task
  /// for the runs that end without suspending; no task for a restart replaced before it
  /// started), and the unlock starts a drain to start them if no pass comes first.
  @inlinable @inline(__always)
  func passWithDependenciesUnlocking(_ action: Action) -> Bool {
    assertConsumerLockHeld()
    if _slowPath(queue.hasPending) && !drainBeforeCallerLocked() {
      queue.unlockConsumer(wakingForLeftovers: true)
      return false
    }
    reduceCollectingLocked(action, enqueuedAt: 0)
    // Round trips that never suspended: their effects pushed while this caller held the lock.
    if _slowPath(queue.hasPending) {
      drainAfterCallerUnlocking(bindingDependencies: false)
      return true
    }
    if _slowPath(isObserved) { publishStateLocked() }
    if collected.isEmpty {
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
  func drainAfterCallerUnlocking(bindingDependencies: Bool) {
    assertConsumerLockHeld()
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

  /// Reduces what was queued before a producer's own action; `false` when more is left than
  /// ``callerDrainLimit`` (the caller then unlocks and pushes its action behind it).
  @usableFromInline @inline(never)
  func drainBeforeCallerLocked() -> Bool {
    assertConsumerLockHeld()
    _ = drainEntry.unsafelyUnwrapped(self, Self.callerDrainLimit)
    return !queue.hasPending
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
    reportAfterShutdown(action, "enqueued")
  }

  /// Reports `action`, `verb` (enqueued, sent) after the store shut down, as a misuse.
  static func reportAfterShutdown(_ action: Action, _ verb: StaticString) {
    StoreIssueContext.misuse(action).bound {
      reportIssue(
        """
        An action was \(verb) to a store of "\(R.self)" after it was shut down: \
        \(String(customDumping: action))

        Actions sent after "shutdown()" are dropped.
        """
      )
    }
  }

  /// `Store.send` and `Store.send(_:reading:)` when the store is idle: reduces `action` on the
  /// caller's thread with the consumer lock, after everything already queued, and gives
  /// `read` the state right after it; `nil` when the lock is held (the caller then waits for
  /// it on the store's executor, ``lockOnExecutor(isolation:)``).
  ///
  /// Budget as ``enqueue(_:)``'s, plus the ``StoreTask`` (no allocation when the
  /// action started no effect): `spool bench counter-send` against `plain-actor`.
  @inlinable
  func trySend(_ action: Action, reading read: ((State) -> Void)?) -> StoreTask? {
    guard reducesOnCaller && queue.tryLockConsumerUnlessAwaited() else { return nil }
    return sendUnlocking(action, reading: read)
  }

  /// A `send` by a holder of the consumer lock: reduces, gives `read` the state (before the
  /// actions queued meanwhile), takes what its effects sent back (up to
  /// ``callerDrainLimit``), unlocks.
  @inlinable @inline(__always)
  func sendUnlocking(_ action: Action, reading read: ((State) -> Void)? = nil) -> StoreTask {
    assertConsumerLockHeld()
    let task = sendLocked(action)
    if let read { read(statePointer.pointee) }
    if queue.hasPending {
      drainAfterCallerUnlocking(bindingDependencies: true)
    } else {
      queue.unlockConsumer()
    }
    return task
  }

  /// Reduces `action` after everything already queued.
  @inlinable
  func sendLocked(_ action: Action) -> StoreTask {
    assertConsumerLockHeld()
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
      defaultIsIdentical: { defaultDependenciesAreIdenticalLocked })
    {
      return sendWithCurrentDependenciesLocked(action)
    }
    return DependencyValues.$_current.withValue(dependencies) {
      sendWithCurrentDependenciesLocked(action)
    }
  }

  /// Whether a task without a dependencies binding already sees `dependencies`; asked only
  /// from such a task (`DependencyValues._current` is then the default value).
  @inlinable
  var defaultDependenciesAreIdenticalLocked: Bool {
    assertConsumerLockHeld()
    if let known = defaultIdentity { return known }
    return learnDefaultIdentityLocked()
  }

  @usableFromInline
  func learnDefaultIdentityLocked() -> Bool {
    assertConsumerLockHeld()
    let known = DependencyValues._current.isIdentical(to: dependencies)
    defaultIdentity = known
    return known
  }

  @inlinable
  func sendWithCurrentDependenciesLocked(_ action: Action) -> StoreTask {
    assertConsumerLockHeld()
    // Everything enqueued before this send comes first, including a slot another producer has
    // claimed but not written yet (`pop` does not wait for one): the sender's own earlier
    // enqueues may sit behind it. `StressTests` caught the reordering when send did not wait.
    if queue.hasPending { drainEverythingLocked() }
    let tasks = processLocked(action, enqueuedAt: 0, collect: true)
    // Effects that passes on producers' threads left collected start now, as they would
    // at the end of a drain pass.
    startCollectedLocked()
    if isObserved { publishStateLocked() }
    return StoreTask(tasks: tasks) { [self] in await settle(isolation: isolation) }
  }

  /// Reduces until nothing is pending, waiting for claimed slots to be written (a few
  /// instructions away, unless their producer was preempted: hence the yield).
  @inlinable
  func drainEverythingLocked() {
    assertConsumerLockHeld()
    var idleRounds = 0
    repeat {
      if drainAvailableLocked(limit: .max) > 0 {
        idleRounds = 0
      } else {
        idleRounds &+= 1
        if idleRounds > 64 { sched_yield() }
      }
    } while queue.hasPending
  }

  @usableFromInline
  func reportSendAfterShutdown(_ action: Action) {
    Self.reportAfterShutdown(action, "sent")
  }

  /// `Store.send` when ``trySend(_:reading:)`` found the store busy, or the store runs on an
  /// executor it was given: on the store's executor, once the lock is free.
  @inlinable
  func sendOnExecutor(
    _ action: Action, isolation: isolated any StoreIsolation
  ) async -> StoreTask {
    await lockOnExecutor(isolation: isolation)
    return sendUnlocking(action)
  }
}

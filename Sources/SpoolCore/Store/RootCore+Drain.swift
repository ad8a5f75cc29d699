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

// The drain loop: the task that reduces what producers pushed, on the store's executor, with
// the consumer lock held for a batch at a time.
extension RootCore {
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
      // A producer reducing on its own thread holds the lock for a pass: wait for it (for a
      // moment), then ending the drain looks again once it unlocks. A closed queue is not
      // drained: its actions are dropped.
      if !queue.isClosedHint,
        queue.tryLockConsumer() || queue.awaitConsumerLock(spins: idleSpinLimit)
      {
        let reduced = drainLocked(limit: drainBatchLimit)
        queue.resizeIfOverflowed()
        queue.publishConsumed()
        let head = queue.consumerHead
        queue.unlockConsumer()
        if reduced == drainBatchLimit || queue.hasWaiters {
          // Let `send` calls and other jobs waiting for the executor run between batches; at
          // once when a task waits for the lock, so that a producer that keeps the queue
          // from running dry does not keep it out.
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
        dropCollectedLocked()
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
  /// holder on this very thread (an effect of its pass that awaits the store) go on. While it
  /// waits, producers push instead of taking the lock between their passes, and the drain
  /// loop yields after each pass (``ActionQueue/addWaiter()``): a producer that floods the
  /// store cannot keep the lock from it.
  @usableFromInline
  func lockOnExecutor(isolation: isolated any StoreIsolation) async {
    if queue.tryLockConsumer() { return }
    queue.addWaiter()
    var attempts = 0
    while !queue.tryLockConsumer() {
      attempts &+= 1
      if attempts < 128 { continue }
      attempts = 0
      await Task.yield()
    }
    queue.removeWaiter()
  }

  /// Reduces up to `limit` queued actions. Returns how many.
  ///
  /// Budget per action without instrumentation, for a reducer that returns `.none`: one pop
  /// (two loads, one store), one reduce call, one check of the effect; no clock read, no
  /// allocation. With instrumentation: one clock read and one recorder call more; sampled,
  /// two clock reads for a timed action (its predecessor was not timed) and none for the
  /// others.
  @inlinable
  func drainAvailableLocked(limit: Int) -> Int {
    assertConsumerLockHeld()
    var reduced = 0
    if let instrumentation, _slowPath(sampleInterval != 1) {
      // The push decided (``enqueue(_:into:instrumentation:sampleInterval:)``): an action
      // with an enqueue time is timed, the others are counted.
      while reduced < limit, let queued = queue.pop() {
        let effect: Effect<Action>
        if queued.enqueuedAt == 0 {
          effect = reducer.reduce(into: &statePointer.pointee, action: queued.action)
          countUntimedLocked(queued.action)
        } else {
          let start = SpoolTime.now()
          effect = reducer.reduce(into: &statePointer.pointee, action: queued.action)
          instrumentation.recordReduced(
            queued.action, inPlace: timesInPlace, enqueuedAt: queued.enqueuedAt,
            startedAt: start,
            endedAt: SpoolTime.now())
        }
        if !effect.isNone { _ = startEffectLocked(effect, of: queued.action, collect: false) }
        reduced &+= 1
      }
    } else if let instrumentation, !timesReduces {
      // No clock read: the action's enqueue time stands for its reduce.
      while reduced < limit, let queued = queue.pop() {
        let effect = reducer.reduce(into: &statePointer.pointee, action: queued.action)
        let time = queued.enqueuedAt
        instrumentation.recordReduced(
          queued.action, inPlace: timesInPlace, enqueuedAt: time, startedAt: time, endedAt: time)
        if !effect.isNone { _ = startEffectLocked(effect, of: queued.action, collect: false) }
        reduced &+= 1
      }
    } else if let instrumentation {
      // One clock read per action: the end of one reduce is the start of the next.
      var now = SpoolTime.now()
      while reduced < limit, let queued = queue.pop() {
        let start = now
        let effect = reducer.reduce(into: &statePointer.pointee, action: queued.action)
        now = SpoolTime.now()
        instrumentation.recordReduced(
          queued.action, inPlace: timesInPlace, enqueuedAt: queued.enqueuedAt,
          startedAt: start, endedAt: now
        )
        if !effect.isNone {
          _ = startEffectLocked(effect, of: queued.action, collect: false)
          now = SpoolTime.now()
        }
        reduced &+= 1
      }
    } else {
      while reduced < limit, let queued = queue.pop() {
        reduceCollectingLocked(queued.action, enqueuedAt: queued.enqueuedAt)
        reduced &+= 1
      }
    }
    startCollectedLocked()
    if reduced > 0, isObserved { publishStateLocked() }
    return reduced
  }

  /// Reduces up to `limit` queued actions, and starts the effects collected. Returns how many
  /// it reduced.
  ///
  /// Both task-locals are bound for the whole batch: the reducer reads the dependencies, and
  /// effect tasks copy both bindings when they start, so that they need not push them again.
  func drainLocked(limit: Int) -> Int {
    assertConsumerLockHeld()
    guard let drainEntry else { return 0 }
    return DependencyValues.$_current.withValue(dependencies) {
      EffectRegistry.currentLocal.withValue(registry) { drainEntry(self, limit) }
    }
  }
}

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

// Starting the effects that reduces return: collected per pass (``CollectedEffects`` holds the
// rule) and started in batches, or started at once for a `send` that returns their tasks.
extension RootCore {
  /// Starts `effect`, or collects it to start at the end of the drain pass, as
  /// ``CollectedEffects/route(_:forTask:)`` says: for an action from the queue (not
  /// `collect`ed for a ``StoreTask``), a run without a priority of its own joins the pass's
  /// runs, and `.run(…).cancellable(id:cancelInFlight:)` is reserved under its ID, so that a
  /// restart that replaces it before the pass ends costs no task. Otherwise a lone `.run` and
  /// the cancellable shape start here, specialized for the reducer; anything else goes through
  /// the effect planner (``runEffectLocked(_:of:)``), which is generic code whose metadata
  /// lookups would be a large part of every effect's cost (`spool bench effects`).
  @inlinable
  func startEffectLocked(
    _ effect: Effect<Action>, of action: Action, collect: Bool
  ) -> [Task<Void, any Error>] {
    assertConsumerLockHeld()
    guard let box = effect.box else { return [] }
    let route = CollectedEffects<Action>.route(box, forTask: collect)
    if route.startsCollectedRunsFirst && collected.hasRuns { startCollectedRunsLocked() }
    switch route {
    case .collectRun:
      if collected.collect(run: box, origin: action, keepsOrigins: instrumentation != nil) {
        startCollectedRunsLocked()
      }
      return []
    case .collectReserved:
      let (id, cancelInFlight, run) = CollectedEffects<Action>.cancellableRun(box)
      let token = registry.reserve(ids: [id], replacing: cancelInFlight ? id : nil)
      if collected.collect(
        reserved: CollectedEffects<Action>.Reserved(
          token: token, id: id, box: run, origin: action))
      {
        startCollectedReservedLocked()
      }
      return []
    case .startRun:
      let task = startWorkLocked(box.runWork, priority: box.runPriority, origin: action, ids: [])
      return collect ? [task] : []
    case .startCancellable:
      let (id, cancelInFlight, run) = CollectedEffects<Action>.cancellableRun(box)
      let task = startWorkLocked(
        run.runWork, priority: run.runPriority, origin: action, ids: [id],
        replacing: cancelInFlight ? id : nil)
      return collect ? [task] : []
    case .plan:
      return runEffectLocked(effect, of: action)
    }
  }

  /// Starts the collected runs, in order, in as few tasks as their suspensions allow
  /// (``EffectRunner``). Out of line, as is every start of collected effects: the frame that
  /// starts tasks holds a `TaskPriority?`, whose layout is known only at run time, and inlined
  /// into a pass it would cost every action a metadata lookup and a stack allocation.
  @inlinable @inline(never)
  func startCollectedRunsLocked() {
    assertConsumerLockHeld()
    guard let batch = collected.takeRuns() else { return }
    startRunsLocked(batch, send: sendForEffectsLocked)
  }

  /// Starts `batch`'s runs in ``EffectRunner``s, each started immediately, until one has
  /// claimed the last.
  @inlinable
  func startRunsLocked(_ batch: EffectBatch<Action>, send: Send<Action>) {
    assertConsumerLockHeld()
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

  /// Creates the tasks of the collected reserved effects, in order (out of line, as
  /// ``startCollectedRunsLocked()`` says).
  @inlinable @inline(never)
  func startCollectedReservedLocked() {
    assertConsumerLockHeld()
    let send = sendForEffectsLocked
    collected.startReserved { startReservedLocked($0, send: send) }
  }

  /// Creates the task of `effect`, reserved in the registry and collected, unless it was
  /// cancelled since it was reserved (by its ID, or by a shutdown): then it never starts.
  @inlinable
  func startReservedLocked(_ effect: CollectedEffects<Action>.Reserved, send: Send<Action>) {
    assertConsumerLockHeld()
    guard registry.shouldStart(effect.token) else {
      // Still an effect of its action for instrumentation: started and cancelled at once,
      // before its task existed.
      if let instrumentation {
        let now = SpoolTime.now()
        instrumentation.effectStarted(by: effect.origin, at: now)
        instrumentation.effectEnded(
          by: effect.origin, startedAt: now, endedAt: now, outcome: .cancelled)
      }
      return
    }
    _ = startReserved(
      timed(effect.box.runWork, by: effect.origin), priority: effect.box.runPriority,
      ids: [effect.id], token: effect.token, send: send)
  }

  /// Starts every effect the pass has collected, at its end: the check inline, the starting
  /// out of line (``startCollectedRunsLocked()`` says why).
  @inlinable @inline(__always)
  func startCollectedLocked() {
    assertConsumerLockHeld()
    if !collected.isEmpty { startAllCollectedLocked() }
    queue.clearWorkOwed()
  }

  /// The reserved effects, then the runs (``CollectedEffects/startAll(reserved:runs:)``).
  @inlinable @inline(never)
  func startAllCollectedLocked() {
    assertConsumerLockHeld()
    let send = sendForEffectsLocked
    collected.startAll(
      reserved: { startReservedLocked($0, send: send) },
      runs: { startRunsLocked($0, send: send) })
  }

  /// Forgets the effects collected but not started, when the store has shut down and its drain
  /// loop ends: they count as cancelled before they started (a reserved one gives its slot
  /// back, so that `finish()` does not wait for it).
  func dropCollectedLocked() {
    assertConsumerLockHeld()
    collected.drop(givingBackTo: registry)
    queue.clearWorkOwed()
  }

  /// Starts the work of a `.run` effect in a task registered under `ids`, after cancelling the
  /// tasks under `replacing` (`cancelInFlight`).
  @inlinable
  func startWorkLocked(
    _ work: @escaping Effect<Action>.Work,
    priority: TaskPriority?,
    origin: Action,
    ids: [AnyHashableSendable],
    replacing: AnyHashableSendable? = nil
  ) -> Task<Void, any Error> {
    assertConsumerLockHeld()
    let send = sendForEffectsLocked
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

  /// Carries out `effect` through the effect planner
  /// (``EffectPlan/carryOut(_:of:registry:reduce:start:)``, the code `TestStore` runs effects
  /// with): starts its tasks, then reduces the actions it sent synchronously (first in, first
  /// out) and carries out their effects; returns the started tasks.
  @usableFromInline
  func runEffectLocked(_ effect: Effect<Action>, of action: Action) -> [Task<Void, any Error>] {
    assertConsumerLockHeld()
    var tasks: [Task<Void, any Error>] = []
    let registry = self.registry
    let instrumentation = self.instrumentation
    EffectPlan.carryOut(
      effect, of: action, registry: registry,
      // It waited for nothing: reduced as a `send` is.
      reduce: { reduceTimedLocked($0, enqueuedAt: 0) },
      start: { plan, origin in
        tasks += plan.startTasks(registry: registry, send: sendForEffectsLocked) {
          guard let instrumentation else { return nil }
          let startedAt = SpoolTime.now()
          instrumentation.effectStarted(by: origin, at: startedAt)
          return { outcome in
            instrumentation.effectEnded(
              by: origin, startedAt: startedAt, endedAt: SpoolTime.now(), outcome: outcome)
          }
        }
      })
    return tasks
  }
}

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

// Starting the effects that reduces return: collected per pass and started in batches, or
// started at once for a `send` that returns their tasks.
extension RootCore {
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
  /// else goes through the effect planner (`runEffectLocked`), which is generic code whose metadata
  /// lookups would be a large part of every effect's cost (`spool bench effects`).
  @inlinable
  func startEffectLocked(
    _ effect: Effect<Action>, of action: Action, collect: Bool
  ) -> [Task<Void, any Error>] {
    assertConsumerLockHeld()
    guard let box = effect.box else { return [] }
    if box.isRun {
      let priority = box.runPriority
      if !collect && priority == nil {
        if pendingRuns == nil {
          pendingRuns = EffectBatch(
            capacity: Self.runBatchLimit, keepsOrigins: instrumentation != nil)
        }
        if pendingRuns.unsafelyUnwrapped.append(box, origin: action) == Self.runBatchLimit {
          startPendingRunsLocked()
        }
        return []
      }
      if pendingRuns != nil { startPendingRunsLocked() }
      let task = startWorkLocked(box.runWork, priority: priority, origin: action, ids: [])
      return collect ? [task] : []
    }
    // `.run { … }.cancellable(id:cancelInFlight:)`, the other common shape.
    if case let .cancellable(id, cancelInFlight, inner) = box.operation,
      let innerBox = inner.box, innerBox.isRun
    {
      // Collected runs start first: one may register work under `id` that this one replaces.
      if pendingRuns != nil { startPendingRunsLocked() }
      if !collect {
        let token = registry.reserve(ids: [id], replacing: cancelInFlight ? id : nil)
        pendingReserved.append(
          PendingReservedEffect(token: token, id: id, box: innerBox, origin: action))
        if pendingReserved.count == Self.runBatchLimit { startPendingReservedLocked() }
        return []
      }
      let task = startWorkLocked(
        innerBox.runWork, priority: innerBox.runPriority, origin: action, ids: [id],
        replacing: cancelInFlight ? id : nil)
      return collect ? [task] : []
    }
    if pendingRuns != nil { startPendingRunsLocked() }
    return runEffectLocked(effect, of: action)
  }

  /// Starts the runs collected in ``pendingRuns``, in order, in as few tasks as their
  /// suspensions allow (``EffectRunner``).
  @inlinable
  func startPendingRunsLocked() {
    assertConsumerLockHeld()
    let send = sendForEffectsLocked
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
  /// since they were reserved (by their ID, or by a shutdown): those never start.
  @inlinable
  func startPendingReservedLocked() {
    assertConsumerLockHeld()
    let send = sendForEffectsLocked
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
  func startPendingEffectsLocked() {
    assertConsumerLockHeld()
    if !pendingReserved.isEmpty { startPendingReservedLocked() }
    if pendingRuns != nil { startPendingRunsLocked() }
    queue.clearWorkOwed()
  }

  /// Forgets the effects collected but not started, when the store has shut down and its drain
  /// loop ends: they count as cancelled before they started (a reserved one gives its slot
  /// back, so that `finish()` does not wait for it).
  func dropPendingEffectsLocked() {
    assertConsumerLockHeld()
    pendingRuns = nil
    for pending in pendingReserved { _ = registry.shouldStart(pending.token) }
    pendingReserved.removeAll()
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

  /// Carries out `effect`: starts its tasks, then reduces the actions it sent synchronously
  /// (first in, first out) and carries out their effects; returns the started tasks.
  @usableFromInline
  func runEffectLocked(_ effect: Effect<Action>, of action: Action) -> [Task<Void, any Error>] {
    assertConsumerLockHeld()
    var tasks: [Task<Void, any Error>] = []
    var pending = [(action, effect)]
    var index = 0
    while index < pending.count {
      let (origin, effect) = pending[index]
      index += 1
      var plan = EffectPlan<Action>()
      plan.add(effect, registry: registry)
      startPlanLocked(plan, origin: origin, tasks: &tasks)
      for sent in plan.sends {
        // It waited for nothing: reduced as a `send` is.
        let next = reduceTimedLocked(sent, enqueuedAt: 0)
        if next.isNone { continue }
        pending.append((sent, next))
      }
    }
    return tasks
  }

  private func startPlanLocked(
    _ plan: EffectPlan<Action>,
    origin: Action,
    tasks: inout [Task<Void, any Error>]
  ) {
    assertConsumerLockHeld()
    guard plan.hasTasks else { return }
    let send = sendForEffectsLocked
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
}

import ConcurrencyExtras

/// Carries out the effects a reducer returns, for a runtime other than ``Store``: the hook
/// through which `SpoolTesting`'s `TestStore` runs effects with exactly the store's semantics.
///
/// It holds no effect logic of its own: it hands effects to the code the store's effect
/// planner runs (`EffectPlan.carryOut` and `EffectPlan.startTasks`: cancellations at once,
/// synchronous sends reduced right after, in order, the asynchronous parts as tasks registered
/// in one `EffectRegistry` under their cancellation IDs), so that a test exercises the same
/// effect machinery as production. What it does not share is when a run starts: a store
/// collects a pass's plain runs and starts them together at the pass's end, while here every
/// effect goes through the planner and starts its task at once. The tasks prefer `executor`,
/// which is how a test store decides when they run.
package final class EffectStarter<Action: Sendable>: Sendable {
  private let registry: EffectRegistry

  /// Creates a starter whose effect tasks prefer `executor`.
  package init(executor: (any TaskExecutor)?) {
    self.registry = EffectRegistry(executor: executor, startsImmediately: false)
  }

  /// The tasks of one effect, ready to start (``carryOut(_:of:reduce:start:)``).
  package struct PlannedTasks {
    fileprivate let plan: EffectPlan<Action>
    fileprivate let registry: EffectRegistry

    /// Starts the tasks, each sending through `send`; `onTaskEnd` is called once when each of
    /// them ends (finished, failed or cancelled).
    package func start(
      send: Send<Action>, onTaskEnd: @escaping @Sendable () -> Void
    ) -> [Task<Void, any Error>] {
      plan.startTasks(registry: registry, send: send) { { _ in onTaskEnd() } }
    }
  }

  /// Carries out `effect`, which the reduce of `origin` returned, as the store would right
  /// after that reduce.
  ///
  /// Cancellations happen now. The actions the effect sends synchronously are handed to
  /// `reduce`, in order, and the effects it returns are carried out in turn, first in, first
  /// out. For each effect with asynchronous parts, `start` is called with its tasks and the
  /// action whose reduce returned it, and starts them.
  package func carryOut(
    _ effect: Effect<Action>,
    of origin: Action,
    reduce: (Action) -> Effect<Action>,
    start: (_ tasks: PlannedTasks, _ origin: Action) -> Void
  ) {
    let registry = self.registry
    EffectPlan.carryOut(effect, of: origin, registry: registry, reduce: reduce) { plan, origin in
      start(PlannedTasks(plan: plan, registry: registry), origin)
    }
  }

  /// Cancels every running effect task, and every task started later.
  package func cancelAll() {
    registry.shutdown()
  }

  /// The number of effect tasks that have not ended.
  package var runningTaskCount: Int { registry.count }
}

import ConcurrencyExtras

/// Starts the effects a reducer returns, for a runtime other than ``Store``: the hook through
/// which `SpoolTesting`'s `TestStore` runs effects with exactly the store's semantics.
///
/// It walks an effect the way the store does (one `EffectPlan`: cancellations at once,
/// synchronous sends handed back in order, the asynchronous parts as tasks registered in one
/// `EffectRegistry` under their cancellation IDs), so that a test exercises the same effect
/// machinery as production. The tasks prefer `executor`, which is how a test store decides when
/// they run.
package final class EffectStarter<Action: Sendable>: Sendable {
  private let registry: EffectRegistry

  /// Creates a starter whose effect tasks prefer `executor`.
  package init(executor: (any TaskExecutor)?) {
    self.registry = EffectRegistry(executor: executor, startsImmediately: false)
  }

  /// Carries out `effect` as the store would right after a reduce.
  ///
  /// Cancellations happen now. The actions the effect sends synchronously are returned, in
  /// order, for the caller to reduce. Every asynchronous part starts as a task; `onTaskEnd` is
  /// called once when each of those tasks ends (finished, failed or cancelled).
  ///
  /// - Returns: The synchronously sent actions and the started tasks.
  package func start(
    _ effect: Effect<Action>,
    send: Send<Action>,
    onTaskEnd: @escaping @Sendable () -> Void
  ) -> (sends: [Action], tasks: [Task<Void, any Error>]) {
    var plan = EffectPlan<Action>()
    plan.add(effect, registry: registry)
    var parts: [(ids: [AnyHashableSendable], effect: Effect<Action>)] = []
    if !plan.unregistered.isEmpty { parts.append(([], .merge(plan.unregistered))) }
    parts += plan.registered
    let registry = self.registry
    let tasks = parts.map { ids, effect in
      registry.spawn(ids: ids, priority: effect.priority) {
        defer { onTaskEnd() }
        _ = await effect.execute(send: send, registry: registry)
      }
    }
    return (plan.sends, tasks)
  }

  /// Cancels every running effect task, and every task started later.
  package func cancelAll() {
    registry.shutdown()
  }

  /// The number of effect tasks that have not ended.
  package var runningTaskCount: Int { registry.count }
}

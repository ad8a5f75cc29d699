import ConcurrencyExtras

extension EffectOutcome {
  /// The outcome to report for an effect of the current task: `.finished` in a task that was
  /// cancelled is `.cancelled` (the operation returned, but it was asked to stop).
  @inlinable
  func resolved() -> EffectOutcome {
    self == .finished && Task.isCancelled ? .cancelled : self
  }

  /// The outcome of several effects that ran together: a failure wins over a cancellation,
  /// which wins over a normal end.
  func combined(with other: EffectOutcome) -> EffectOutcome {
    switch (self, other) {
    case (.failed, _), (_, .failed): return .failed
    case (.cancelled, _), (_, .cancelled): return .cancelled
    default: return .finished
    }
  }
}

extension Effect {
  /// Runs the whole effect in the current task: merged parts as child tasks of one task group,
  /// concatenated parts in order, cancellable parts as registered child tasks.
  func execute(send: Send<Action>, registry: EffectRegistry) async -> EffectOutcome {
    switch operation {
    case .none:
      return .finished
    case let .send(action):
      await send(action)
      return .finished
    case let .run(_, work):
      return await work(send).resolved()
    case let .merge(effects):
      return await withTaskGroup(of: EffectOutcome.self) { group in
        for effect in effects {
          group.addTask(priority: effect.priority) {
            await effect.execute(send: send, registry: registry)
          }
        }
        var outcome = EffectOutcome.finished
        for await part in group { outcome = outcome.combined(with: part) }
        return outcome
      }
    case let .concatenate(effects):
      var outcome = EffectOutcome.finished
      for effect in effects {
        if Task.isCancelled { return .cancelled }
        outcome = outcome.combined(with: await effect.execute(send: send, registry: registry))
      }
      return outcome
    case let .cancellable(id, cancelInFlight, effect):
      do {
        return try await registry.runCancellable(id: id, cancelInFlight: cancelInFlight) {
          await effect.execute(send: send, registry: registry)
        }
      } catch {
        return .cancelled
      }
    case let .cancel(id):
      registry.cancel(id: id)
      return .finished
    }
  }

  /// The priority of the first `run` in the effect, if any asked for one.
  var priority: TaskPriority? {
    switch operation {
    case let .run(priority, _): return priority
    case let .merge(effects), let .concatenate(effects):
      return effects.lazy.compactMap(\.priority).first
    case let .cancellable(_, _, effect): return effect.priority
    case .none, .send, .cancel: return nil
    }
  }
}

/// The part of an effect the store carries out at once, when a reducer returns it: synchronous
/// sends and cancellations in order, and the asynchronous parts grouped into the tasks to start.
struct EffectPlan<Action: Sendable> {
  /// Actions to reduce right after the current one.
  var sends: [Action] = []
  /// Asynchronous parts outside any nested `cancellable`, to run together in one task.
  var unregistered: [Effect<Action>] = []
  /// `cancellable` parts: each is one task registered under all `ids` of the `cancellable`s that
  /// enclose it, whose merged parts are child tasks of one task group.
  var registered: [(ids: [AnyHashableSendable], effect: Effect<Action>)] = []

  /// Walks `effect`, cancelling what it cancels through `registry` as it goes, in order.
  ///
  /// `ids` are the cancellation IDs of the `cancellable`s that enclose `effect`.
  mutating func add(
    _ effect: Effect<Action>,
    ids: [AnyHashableSendable] = [],
    registry: EffectRegistry
  ) {
    switch effect.operation {
    case .none:
      return
    case let .send(action):
      sends.append(action)
    case let .cancel(id):
      registry.cancel(id: id)
    case .run:
      unregistered.append(effect)
    case let .merge(effects):
      for effect in effects { add(effect, ids: ids, registry: registry) }
    case let .concatenate(effects):
      // Leading synchronous parts happen now; the rest waits in one task, in order.
      guard let firstAsync = effects.firstIndex(where: { !$0.isSynchronous }) else {
        for effect in effects { add(effect, ids: ids, registry: registry) }
        return
      }
      for effect in effects[..<firstAsync] { add(effect, ids: ids, registry: registry) }
      unregistered.append(Effect(operation: .concatenate(Array(effects[firstAsync...]))))
    case let .cancellable(id, cancelInFlight, inner):
      if cancelInFlight { registry.cancel(id: id) }
      var innerPlan = EffectPlan()
      innerPlan.add(inner, ids: ids + [id], registry: registry)
      sends += innerPlan.sends
      if !innerPlan.unregistered.isEmpty {
        registered.append((ids + [id], .merge(innerPlan.unregistered)))
      }
      registered += innerPlan.registered
    }
  }

  var hasTasks: Bool { !unregistered.isEmpty || !registered.isEmpty }
}

// Carrying a plan out: the one path by which the store (`RootCore.runEffectLocked`) and
// `TestStore` (through `EffectStarter`) carry out the effects that need the planner, so that
// both give them the same semantics.
extension EffectPlan {
  /// Carries out `effect`, which the reduce of `origin` returned, as the store does: walks it
  /// (cancellations at once), has `start` start its tasks, then reduces the actions it sent
  /// synchronously with `reduce` and carries out their effects in turn, first in, first out.
  ///
  /// - Parameters:
  ///   - registry: The registry the cancellations go to.
  ///   - reduce: Reduces an action an effect sent synchronously; returns its effect.
  ///   - start: Starts the tasks of one plan (``startTasks(registry:send:observe:)``), called
  ///     with the action whose reduce returned the plan's effect; only for a plan with tasks.
  static func carryOut(
    _ effect: Effect<Action>,
    of origin: Action,
    registry: EffectRegistry,
    reduce: (Action) -> Effect<Action>,
    start: (_ plan: EffectPlan, _ origin: Action) -> Void
  ) {
    var pending = [(origin, effect)]
    var index = 0
    while index < pending.count {
      let (origin, effect) = pending[index]
      index += 1
      var plan = EffectPlan()
      plan.add(effect, registry: registry)
      if plan.hasTasks { start(plan, origin) }
      for sent in plan.sends {
        let next = reduce(sent)
        if next.isNone { continue }
        pending.append((sent, next))
      }
    }
  }

  /// Starts the plan's tasks in `registry`: the parts outside any `cancellable` merged in one
  /// task, then one task per `cancellable` part; returns them in that order.
  ///
  /// - Parameter observe: Called right before each task is created; what it returns, if
  ///   anything, is called with the task's outcome when the task ends.
  func startTasks(
    registry: EffectRegistry,
    send: Send<Action>,
    observe: () -> (@Sendable (EffectOutcome) -> Void)?
  ) -> [Task<Void, any Error>] {
    var tasks: [Task<Void, any Error>] = []
    if !unregistered.isEmpty {
      tasks.append(
        Self.spawn(
          .merge(unregistered), ids: [], registry: registry, send: send, ended: observe()))
    }
    for (ids, effect) in registered {
      tasks.append(
        Self.spawn(effect, ids: ids, registry: registry, send: send, ended: observe()))
    }
    return tasks
  }

  private static func spawn(
    _ effect: Effect<Action>, ids: [AnyHashableSendable], registry: EffectRegistry,
    send: Send<Action>, ended: (@Sendable (EffectOutcome) -> Void)?
  ) -> Task<Void, any Error> {
    guard let ended else {
      return registry.spawn(ids: ids, priority: effect.priority) {
        _ = await effect.execute(send: send, registry: registry)
      }
    }
    return registry.spawn(ids: ids, priority: effect.priority) {
      ended(await effect.execute(send: send, registry: registry))
    }
  }
}

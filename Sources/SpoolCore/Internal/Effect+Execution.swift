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

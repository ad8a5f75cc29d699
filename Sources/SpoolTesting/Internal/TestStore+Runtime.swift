import CustomDump
import Dependencies
import SpoolCore

extension TestStore {
  /// An action an effect sent, reduced when it arrived, with the state around its reduce.
  struct ReceivedAction {
    var action: Action
    var stateBefore: State
    var stateAfter: State
  }

  /// How many times a step yields, once nothing is left to run, to let work that an effect
  /// handed to another executor come back before the step decides nothing will.
  static var idleYieldLimit: Int { 10 }

  /// Reduces `action` with the test store's dependencies.
  func reduce(_ action: Action) -> Effect<Action> {
    DependencyValues.$_current.withValue(dependencies) {
      reducer(&reducedState, action)
    }
  }

  /// Carries out `effect` of `origin` through the store's effect planner (`EffectStarter`):
  /// starts its tasks, then reduces the actions it sends synchronously (recorded as received)
  /// and carries out their effects, first in, first out, as the store does.
  ///
  /// - Returns: The ledger IDs and tasks of the effects that started.
  func start(
    _ effect: Effect<Action>, of origin: Action, at location: TestLocation
  ) -> (ids: [Int], tasks: [Task<Void, any Error>]) {
    var ids: [Int] = []
    var allTasks: [Task<Void, any Error>] = []
    let mailbox = self.mailbox
    effects.carryOut(effect, of: origin, reduce: { record($0) }) { planned, origin in
      let id = mailbox.reserveEffect(of: origin, at: location)
      // A `Send` per effect, so that each action it posts names it (cascading cancellation).
      let send = Send<Action> { mailbox.post($0, fromEffect: id) }
      let tasks = DismissTarget.currentLocal.withValue(rootDismissal) {
        planned.start(send: send) { mailbox.taskEnded(effect: id) }
      }
      mailbox.addTasks(tasks.count, toEffect: id)
      if !tasks.isEmpty {
        ids.append(id)
        effectTasks[id] = tasks
        allTasks += tasks
      }
    }
    return (ids, allTasks)
  }

  /// Reduces an action an effect sent and records it for `receive`; returns its effect.
  private func record(_ action: Action) -> Effect<Action> {
    let before = reducedState
    let effect = reduce(action)
    receivedActions.append(
      ReceivedAction(action: action, stateBefore: before, stateAfter: reducedState))
    return effect
  }

  /// Reduces the actions effects have sent since the last look, and starts their effects.
  ///
  /// - Returns: Whether there were any.
  private func reducePostedActions(at location: TestLocation) -> Bool {
    if !isDismissed && mailbox.isDismissed {
      // TCA's behaviour: a dismissed root feature's effects are cancelled, those its pending
      // actions start included (`cancelAll` also cancels tasks started later).
      isDismissed = true
      effects.cancelAll()
    }
    let actions = mailbox.takeActions()
    for posted in actions {
      let (ids, _) = start(record(posted.action), of: posted.action, at: location)
      if !ids.isEmpty { effectChildren[posted.effect, default: []] += ids }
    }
    forgetEndedEffects()
    return !actions.isEmpty
  }

  private func forgetEndedEffects() {
    pruneEffectTree()
    guard !effectTasks.isEmpty else { return }
    for id in effectTasks.keys where !mailbox.isInFlight(effect: id) {
      effectTasks[id] = nil
    }
  }

  /// Drops the entries of ``effectChildren`` under which no effect is in flight any more. An
  /// ended effect keeps its entry while one of its descendants runs: cancelling its send must
  /// still reach that descendant.
  private func pruneEffectTree() {
    var changed = !effectChildren.isEmpty
    while changed {
      changed = false
      for (parent, children) in effectChildren {
        let live = children.filter { mailbox.isInFlight(effect: $0) || effectChildren[$0] != nil }
        if live.isEmpty && !mailbox.isInFlight(effect: parent) {
          effectChildren[parent] = nil
          changed = true
        } else if live.count != children.count {
          effectChildren[parent] = live
          changed = true
        }
      }
    }
  }

  /// `ids` and every effect started, recursively, by the actions they sent once running.
  func withDescendants(_ ids: [Int]) -> [Int] {
    var result: [Int] = []
    var seen: Set<Int> = []
    var stack = Array(ids.reversed())
    while let id = stack.popLast() {
      guard seen.insert(id).inserted else { continue }
      result.append(id)
      stack += (effectChildren[id] ?? []).reversed()
    }
    return result
  }

  /// Runs effects until none can make progress: queued jobs one at a time, oldest first, each
  /// followed by the reduce of the actions it sent.
  nonisolated(nonsending) func runEffectsUntilIdle(at location: TestLocation) async {
    var idleYields = 0
    while true {
      if executor.runNext() {
        _ = reducePostedActions(at: location)
        idleYields = 0
        continue
      }
      if reducePostedActions(at: location) {
        idleYields = 0
        continue
      }
      guard idleYields < Self.idleYieldLimit else { return }
      idleYields += 1
      await Task.yield()
    }
  }

  /// Runs effects until `isDone` holds, or until no effect is in flight, or until `timeout`
  /// has passed without progress being possible.
  ///
  /// A deterministic test never waits here: either the effects get there by running, or nothing
  /// can change until the test acts, and the step fails (after `timeout` if effects are still
  /// suspended, as TCA does, in case they wait for work on another thread).
  nonisolated(nonsending) func runEffects(
    until isDone: () -> Bool, timeout: Duration, at location: TestLocation
  ) async {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: timeout)
    while true {
      mailbox.wakeup.reset()
      await runEffectsUntilIdle(at: location)
      if isDone() || !mailbox.hasInFlightEffects { return }
      let remaining = clock.now.duration(to: deadline)
      guard remaining > .zero else { return }
      _ = await mailbox.wakeup.wait(timeout: remaining)
    }
  }

  /// Cancels the in-flight effects `ids` and lets them unwind.
  nonisolated(nonsending) func cancelEffects(_ ids: [Int], at location: TestLocation) async {
    for id in ids {
      for task in effectTasks[id] ?? [] { task.cancel() }
    }
    await runEffectsUntilIdle(at: location)
    for id in ids {
      mailbox.forget(effect: id)
      effectTasks[id] = nil
      effectChildren[id] = nil
    }
  }
}

extension String {
  /// The string with every line indented by `spaces`.
  func indented(by spaces: Int) -> String {
    let indent = String(repeating: " ", count: spaces)
    return split(separator: "\n", omittingEmptySubsequences: false)
      .map { $0.isEmpty ? "" : indent + $0 }
      .joined(separator: "\n")
  }
}

/// `action`, dumped and indented, for failure messages.
func describe(_ value: some Any) -> String {
  String(customDumping: value).indented(by: 2)
}

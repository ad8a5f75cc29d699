import Synchronization

/// What effect tasks share with their test store: the actions they send and the ledger of
/// effects still in flight.
///
/// Effect tasks write here from the test store's executor (or, for effects that hop elsewhere,
/// from any thread); the test store reads it between jobs. Everything is protected by `state`'s
/// mutex. Each change wakes a test store that waits for work (``Wakeup``).
final class EffectMailbox<Action: Sendable>: Sendable {
  struct InFlightEffect: Sendable {
    /// The action whose reduce returned the effect.
    var origin: Action
    /// Where the test sent (or received) `origin`.
    var location: TestLocation
    /// How many of the effect's tasks have not ended (negative for a moment if one ends before
    /// it was counted).
    var runningTasks: Int
  }

  /// An action an effect sent, with the ledger ID of that effect.
  struct PostedAction: Sendable {
    var action: Action
    /// The effect that sent it: the effects its reduce starts are cancelled with that one's
    /// send (``TestStoreTask/cancel(fileID:filePath:line:column:)``).
    var effect: Int
  }

  private struct State {
    var actions: [PostedAction] = []
    var inFlight: [Int: InFlightEffect] = [:]
    var nextID = 0
    var isDismissed = false
  }

  private let state = Mutex(State())
  let wakeup = Wakeup()

  /// Called by the `Send` of effect `id`: the action waits here until the test store reduces it.
  func post(_ action: Action, fromEffect id: Int) {
    state.withLock { $0.actions.append(PostedAction(action: action, effect: id)) }
    wakeup.signal()
  }

  /// Called by `dismiss()` in an effect of the root feature: the test store cancels its effects
  /// at its next look, and refuses later sends.
  func dismiss() {
    state.withLock { $0.isDismissed = true }
    wakeup.signal()
  }

  /// Whether an effect of the root feature called `dismiss()`.
  var isDismissed: Bool { state.withLock { $0.isDismissed } }

  /// Takes the posted actions, oldest first.
  func takeActions() -> [PostedAction] {
    state.withLock { state in
      defer { state.actions.removeAll() }
      return state.actions
    }
  }

  /// Records an effect of `origin` before its tasks start; returns its ledger ID. The effect
  /// stays in flight until as many tasks as ``addTasks(_:toEffect:)`` adds have ended.
  func reserveEffect(of origin: Action, at location: TestLocation) -> Int {
    state.withLock { state in
      let id = state.nextID
      state.nextID += 1
      state.inFlight[id] = InFlightEffect(origin: origin, location: location, runningTasks: 0)
      return id
    }
  }

  /// Adds `count` started tasks to effect `id`; an effect with no task is not in flight.
  func addTasks(_ count: Int, toEffect id: Int) {
    state.withLock { state in
      state.inFlight[id]?.runningTasks += count
      if state.inFlight[id]?.runningTasks == 0 { state.inFlight[id] = nil }
    }
  }

  /// Called when one task of effect `id` ends.
  func taskEnded(effect id: Int) {
    state.withLock { state in
      state.inFlight[id]?.runningTasks -= 1
      if state.inFlight[id]?.runningTasks == 0 { state.inFlight[id] = nil }
    }
    wakeup.signal()
  }

  /// Forgets effect `id` (skipped by the test); its tasks may still end later.
  func forget(effect id: Int) {
    _ = state.withLock { $0.inFlight.removeValue(forKey: id) }
  }

  /// The effects in flight, oldest first, with their ledger IDs.
  var inFlight: [(id: Int, effect: InFlightEffect)] {
    state.withLock { state in
      state.inFlight.sorted { $0.key < $1.key }.map { (id: $0.key, effect: $0.value) }
    }
  }

  /// Whether effect `id` still has running tasks.
  func isInFlight(effect id: Int) -> Bool {
    state.withLock { $0.inFlight[id] != nil }
  }

  var hasInFlightEffects: Bool { state.withLock { !$0.inFlight.isEmpty } }
}

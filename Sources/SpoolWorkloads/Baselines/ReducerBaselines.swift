import SpoolCore
import SpoolBench

/// The same reducer run without Spool, the ways a Swift engineer would: the figures Spool's
/// throughput is divided by.
///
/// Every baseline reduces `actions` actions made by `makeAction(index)`, advances the progress
/// once per chunk, and hands the final state and the measurement's label to `verify`, which
/// throws when actions were lost.
package enum ReducerBaselines {
  /// Checks a final state; throws ``WorkloadCheckError`` naming `measurement` when it is wrong.
  package typealias Verify<State> = (_ state: State, _ measurement: String) throws -> Void

  /// Actions between two progress updates: small enough for a smooth bar, large enough that
  /// the update costs nothing.
  static let chunk = 1 << 14

  /// `raw-loop`: the reducer called in a loop on a local state. The floor of any store.
  package static func rawLoop<R: Reducer>(
    _ run: WorkloadRun, reducer: R, initialState: R.State, actions: Int,
    makeAction: (Int) -> R.Action, verify: Verify<R.State>
  ) async throws -> Measurement {
    var state = initialState
    let result = await run.baseline("raw-loop", actions: actions) {
      var index = 0
      while index < actions {
        let end = min(index + chunk, actions)
        while index < end {
          reduceOnce(reducer, &state, makeAction(index))
          index += 1
        }
        run.progress.advance(by: chunk)
      }
    }
    try verify(state, run.label("raw-loop"))
    return result
  }

  /// One reduce that the optimizer may not fold into the loop around it: without the call
  /// boundary, a counter's loop of `count += 1` becomes one addition and the floor would be
  /// meaningless. The call costs a few instructions, far less than any store's path.
  @inline(never)
  static func reduceOnce<R: Reducer>(_ reducer: R, _ state: inout R.State, _ action: R.Action) {
    _ = reducer.reduce(into: &state, action: action)
  }

  /// `plain-actor`: an actor that owns the state, awaited once per action from `producers`
  /// tasks (one by default).
  package static func plainActor<R: Reducer & Sendable>(
    _ run: WorkloadRun, reducer: R, initialState: R.State, actions: Int, producers: Int = 1,
    makeAction: @escaping @Sendable (Int) -> R.Action, verify: Verify<R.State>
  ) async throws -> Measurement where R.State: Sendable {
    let store = PlainActorStore(initialState: initialState, reducer: reducer)
    let share = actions / producers
    let result = await run.baseline("plain-actor", actions: share * producers) {
      await withTaskGroup(of: Void.self) { group in
        for producer in 0..<producers {
          group.addTask {
            var index = 0
            while index < share {
              let end = min(index + chunk, share)
              while index < end {
                await store.send(makeAction(producer * share + index))
                index += 1
              }
              run.progress.advance(by: chunk)
            }
          }
        }
      }
    }
    try verify(await store.currentState, run.label("plain-actor"))
    return result
  }

  /// `task-per-action`: a plain actor fed from synchronous code, which has to start a `Task`
  /// per action. Tasks are started in windows of 10,000 so that memory stays bounded (and the
  /// peak RSS of the Spool runs that follow is not this baseline's).
  package static func taskPerAction<R: Reducer & Sendable>(
    _ run: WorkloadRun, reducer: R, initialState: R.State, actions: Int,
    makeAction: @escaping @Sendable (Int) -> R.Action, verify: Verify<R.State>
  ) async throws -> Measurement where R.State: Sendable {
    let store = PlainActorStore(initialState: initialState, reducer: reducer)
    let done = Countdown()
    let window = 10_000
    let result = await run.baseline("task-per-action", actions: actions) {
      var start = 0
      while start < actions {
        let end = min(start + window, actions)
        startTasks(start..<end, store: store, done: done, makeAction: makeAction)
        await done.wait(until: end)
        run.progress.advance(by: end - start)
        start = end
      }
    }
    try verify(await store.currentState, run.label("task-per-action"))
    return result
  }

  /// What synchronous code (a callback, a delegate) does to reach an actor.
  private static func startTasks<R: Reducer & Sendable>(
    _ indices: Range<Int>, store: PlainActorStore<R>, done: Countdown,
    makeAction: @escaping @Sendable (Int) -> R.Action
  ) where R.State: Sendable {
    for index in indices {
      Task {
        await store.send(makeAction(index))
        done.arrive()
      }
    }
  }

  /// `locked-class`: a class that runs the reducer under a mutex, called from `producers`
  /// tasks (one by default).
  ///
  /// With `lookingUpTaskLocal`, the baseline is `locked-class+task-local`: the same class, and
  /// one task-local lookup per action before the lock, as Spool's idle-store path makes to
  /// give the reducer the store's dependencies. Spool's ratio to it is its cost beyond that
  /// lookup, which no store that honours its callers' task-locals can skip.
  package static func lockedClass<R: Reducer & Sendable>(
    _ run: WorkloadRun, reducer: R, initialState: R.State, actions: Int, producers: Int = 1,
    lookingUpTaskLocal: Bool = false,
    makeAction: @escaping @Sendable (Int) -> R.Action, verify: Verify<R.State>
  ) async throws -> Measurement where R.State: Sendable {
    let store = LockedClassStore(initialState: initialState, reducer: reducer)
    let share = actions / producers
    let name = lookingUpTaskLocal ? "locked-class+task-local" : "locked-class"
    let result = await run.baseline(name, actions: share * producers) {
      await withTaskGroup(of: Void.self) { group in
        for producer in 0..<producers {
          group.addTask {
            var index = 0
            while index < share {
              let end = min(index + chunk, share)
              if lookingUpTaskLocal {
                while index < end {
                  store.sendLookingUpTaskLocal(makeAction(producer * share + index))
                  index += 1
                }
              } else {
                while index < end {
                  store.send(makeAction(producer * share + index))
                  index += 1
                }
              }
              run.progress.advance(by: chunk)
            }
          }
        }
      }
    }
    try verify(store.currentState, run.label(name))
    return result
  }
}

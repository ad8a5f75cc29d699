import Foundation
import Spool
import Synchronization

/// The throughput of one way of running the counter feature, measured once.
package struct CounterMeasurement: Sendable {
  package var name: String
  package var actions: Int
  package var seconds: Double
  package var throughputPerSecond: Double { Double(actions) / seconds }
  package var nanosecondsPerAction: Double { seconds * 1e9 / Double(actions) }
}

/// The counter workloads and their baselines, each measured after its setup only.
package enum CounterWorkloads {
  /// Counts actions so the ways of running the counter can be checked for lost actions.
  static func check(_ state: CounterFeature.State, expected: Int, _ name: String) {
    precondition(
      state.count == expected,
      "\(name): lost or duplicated actions: counted \(state.count), expected \(expected)"
    )
  }

  static func measure(_ name: String, actions: Int, _ body: () async -> Void) async
    -> CounterMeasurement
  {
    let start = SpoolTime.now()
    await body()
    let seconds = Double(SpoolTime.now() - start) / 1e9
    return CounterMeasurement(name: name, actions: actions, seconds: seconds)
  }

  /// The floor: the reducer called in a loop on a local state.
  package static func rawLoop(actions: Int) async -> CounterMeasurement {
    var state = CounterFeature.State()
    let reducer = CounterFeature()
    let result = await measure("raw-loop", actions: actions) {
      for _ in 0..<actions { _ = reducer.reduce(into: &state, action: .increment) }
    }
    check(state, expected: actions, "raw-loop")
    return result
  }

  /// A plain actor awaited once per action from one task.
  package static func plainActor(actions: Int) async -> CounterMeasurement {
    let store = PlainActorStore(initialState: CounterFeature.State(), reducer: CounterFeature())
    let result = await measure("plain-actor", actions: actions) {
      for _ in 0..<actions { await store.send(.increment) }
    }
    check(await store.currentState, expected: actions, "plain-actor")
    return result
  }

  /// A plain actor fed from synchronous code, which must start a `Task` per action.
  package static func taskPerAction(actions: Int) async -> CounterMeasurement {
    let store = PlainActorStore(initialState: CounterFeature.State(), reducer: CounterFeature())
    let done = CompletionCounter()
    let result = await measure("task-per-action", actions: actions) {
      enqueueFromSynchronousCode(actions: actions, store: store, done: done)
      while done.value < actions { await Task.yield() }
    }
    check(await store.currentState, expected: actions, "task-per-action")
    return result
  }

  private static func enqueueFromSynchronousCode(
    actions: Int, store: PlainActorStore<CounterFeature>, done: CompletionCounter
  ) {
    for _ in 0..<actions {
      Task {
        await store.send(.increment)
        done.increment()
      }
    }
  }

  /// A mutex-guarded class, called once per action.
  package static func lockedClass(actions: Int) async -> CounterMeasurement {
    let store = LockedClassStore(initialState: CounterFeature.State(), reducer: CounterFeature())
    let result = await measure("locked-class", actions: actions) {
      for _ in 0..<actions { store.send(.increment) }
    }
    check(store.currentState, expected: actions, "locked-class")
    return result
  }

  /// Spool's `enqueue` from one synchronous producer, until the store has reduced everything.
  package static func spoolEnqueue(actions: Int) async -> CounterMeasurement {
    let store = Store(initialState: CounterFeature.State()) { CounterFeature() }
    let result = await measure("spool-enqueue", actions: actions) {
      let start = SpoolTime.now()
      for _ in 0..<actions { store.enqueue(.increment) }
      let produced = SpoolTime.now()
      await store.finish()
      let done = SpoolTime.now()
      if ProcessInfoDebug.enabled {
        print("produce", Double(produced - start) / Double(actions), "drain-rest", Double(done - produced) / Double(actions))
      }
    }
    check(await store.state, expected: actions, "spool-enqueue")
    return result
  }

  /// Spool's `await send`, once per action from one task.
  package static func spoolSend(actions: Int) async -> CounterMeasurement {
    let store = Store(initialState: CounterFeature.State()) { CounterFeature() }
    let result = await measure("spool-send", actions: actions) {
      for _ in 0..<actions { await store.send(.increment) }
    }
    check(await store.state, expected: actions, "spool-send")
    return result
  }

  /// Spool's `enqueue` from `producers` concurrent tasks, each sending its share.
  package static func spoolFanIn(actions: Int, producers: Int) async -> CounterMeasurement {
    let store = Store(initialState: CounterFeature.State()) { CounterFeature() }
    let share = actions / producers
    let total = share * producers
    let result = await measure("spool-fan-in-\(producers)", actions: total) {
      await withTaskGroup(of: Void.self) { group in
        for producer in 0..<producers {
          group.addTask {
            for index in 0..<share { store.enqueue(.add(producer &* share &+ index)) }
          }
        }
      }
      await store.finish()
    }
    let state = await store.state
    check(state, expected: total, "spool-fan-in")
    precondition(state.sum == (0..<total).reduce(0, &+), "spool-fan-in: checksum mismatch")
    return result
  }
}

/// Counts completions from many tasks.
final class CompletionCounter: Sendable {
  private let count = Atomic<Int>(0)
  func increment() { count.add(1, ordering: .releasing) }
  var value: Int { count.load(ordering: .acquiring) }
}

enum ProcessInfoDebug { static var enabled: Bool { getenv("SPOOL_DEBUG") != nil } }

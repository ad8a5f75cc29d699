import SpoolCore
import SpoolBench
import Synchronization

/// `registry`: what finding an existing store costs through a ``StoreRegistry`` (a call that
/// holds the store, `withStore(id) { _ in 1 }`, whose synchronous body picks the synchronous
/// overload), against a `Mutex<[ID: Store]>` lookup, from one
/// task and from two tasks at once.
///
/// `spool` is the registry from one task; the baselines are the dictionary from one task, and
/// both from two tasks (the same number of lookups in all, split between the two). A registry
/// lookup of a live store takes no lock and writes only its thread's counter, so two tasks
/// should go faster than one, although both use the same stores (half a cycle apart); the
/// single dictionary's lock does not. Not in the standard set: it measures the registry, not a
/// store's throughput, and has no latencies to profile.
enum RegistryWorkload {
  /// How many stores the registry and the dictionary hold.
  static let storeCount = 1_024

  static let workload = Workload(
    name: "registry",
    summary: "find an existing store by ID: registry against Mutex<[ID: Store]>, 1 and 2 tasks",
    defaultActions: 4_000_000, isStandard: false
  ) { run in
    let lookups = run.actions / 2 * 2
    let registry = StoreRegistry<Int, CounterFeature.State, CounterFeature.Action> { _ in
      Store(initialState: CounterFeature.State()) { CounterFeature() }
    }
    let dictionary = LockedStores()
    for id in 0..<storeCount {
      try await registry.send(.increment, to: id)
      let store = try await registry.withStore(id) { $0 }
      dictionary.stores.withLock { $0[id] = store }
    }

    let spool = try await run.spool(CounterFeature.Action.self) { _ in
      try await registryLookups(registry, tasks: 1, lookups: lookups, name: "spool")
    }
    var baselines: [Measurement] = []
    run.progress.begin(run.label("mutex-dictionary"), total: lookups)
    baselines.append(try await dictionaryLookups(dictionary, tasks: 1, lookups: lookups))
    run.progress.begin(run.label("spool-2-tasks"), total: lookups)
    baselines.append(
      try await registryLookups(registry, tasks: 2, lookups: lookups, name: "spool-2-tasks"))
    run.progress.begin(run.label("mutex-dictionary-2-tasks"), total: lookups)
    baselines.append(try await dictionaryLookups(dictionary, tasks: 2, lookups: lookups))
    await registry.shutdown(deadline: .now)
    return [
      run.report(
        spool, baselines: baselines,
        parameters: [
          "stores": String(storeCount),
          "lookup": "withStore(id) { _ in 1 }, synchronous body",
        ])
    ]
  }

  /// The baseline's `Mutex<[ID: Store]>`, in a class so that tasks can share it.
  final class LockedStores: Sendable {
    let stores = Mutex<[Int: Store<CounterFeature.State, CounterFeature.Action>]>([:])
  }

  static func registryLookups(
    _ registry: StoreRegistry<Int, CounterFeature.State, CounterFeature.Action>,
    tasks: Int, lookups: Int, name: String
  ) async throws -> Measurement {
    let share = lookups / tasks
    var found = 0
    let result = try await Measurement.time(name, actions: share * tasks) {
      found = try await withThrowingTaskGroup(of: Int.self) { group in
        for task in 0..<tasks {
          group.addTask {
            var hits = 0
            for index in 0..<share {
              let id = (index &* 7 &+ task &* 512) & (storeCount - 1)
              hits &+= try await registry.withStore(id) { _ in 1 }
            }
            return hits
          }
        }
        return try await group.reduce(0, +)
      }
    }
    try checkCount(found, expected: share * tasks, name)
    return result
  }

  static func dictionaryLookups(
    _ dictionary: LockedStores,
    tasks: Int, lookups: Int
  ) async throws -> Measurement {
    let share = lookups / tasks
    var found = 0
    let name = tasks == 1 ? "mutex-dictionary" : "mutex-dictionary-\(tasks)-tasks"
    let result = await Measurement.time(name, actions: share * tasks) {
      found = await withTaskGroup(of: Int.self) { group in
        for task in 0..<tasks {
          group.addTask {
            var hits = 0
            for index in 0..<share {
              let id = (index &* 7 &+ task &* 512) & (storeCount - 1)
              if dictionary.stores.withLock({ $0[id] }) != nil { hits &+= 1 }
            }
            return hits
          }
        }
        return await group.reduce(0, +)
      }
    }
    try checkCount(found, expected: share * tasks, name)
    return result
  }
}

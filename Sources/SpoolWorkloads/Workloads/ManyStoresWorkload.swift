import Dependencies
import SpoolBench
import SpoolCore
import Synchronization

/// One action at a time to stores picked at random among 100,000, as a server with one store
/// per entity sends them: each send finds its store cold (out of the caches), so what it
/// costs is mostly the cache lines it touches.
///
/// Spool sends through a ``StoreRegistry``; the baselines are a plain actor per entity found
/// in a `Mutex<[Int: actor]>` (what a server without Spool writes), and the two kinds of
/// entity held in arrays (no lookup: the send alone). The feature is shaped as a server's
/// entity often is (``EntityFeature``): a small state, and a reducer that carries a setting
/// and a clock dependency.
enum ManyStoresWorkload {
  static let maximumStoreCount = 100_000

  static let workload = Workload(
    name: "many-stores",
    summary: "send to 100,000 stores in random order: registry against actors in a dictionary",
    defaultActions: 1_000_000, isStandard: false
  ) { run in
    let sends = run.actions
    // One store per ten sends up to 100,000 (the default volume's): a small run (a test's)
    // makes fewer.
    let storeCount = min(maximumStoreCount, max(1, sends / 10))
    let ids = randomIDs(count: sends, below: storeCount)
    let registry = StoreRegistry<Int, EntityFeature.State, EntityFeature.Action> { _ in
      Store(initialState: EntityFeature.State()) { EntityFeature() }
    }
    var stores: [Store<EntityFeature.State, EntityFeature.Action>] = []
    stores.reserveCapacity(storeCount)
    var actors: [PlainActorStore<EntityFeature>] = []
    actors.reserveCapacity(storeCount)
    let dictionary = LockedActors()
    for id in 0..<storeCount {
      try await registry.send(.increment, to: id)
      stores.append(try await registry.withStore(id) { $0 })
      let actor = PlainActorStore(initialState: EntityFeature.State(), reducer: EntityFeature())
      await actor.send(.increment)
      actors.append(actor)
      dictionary.actors.withLock { $0[id] = actor }
    }

    var spoolDrives = 0
    let spool = try await run.spool(EntityFeature.Action.self) { _ in
      spoolDrives += 1
      return try await Measurement.time("spool", actions: sends) {
        for id in ids { try await registry.send(.increment, to: id) }
      }
    }
    var baselines: [Measurement] = []
    run.progress.begin(run.label("actor-dictionary"), total: sends)
    baselines.append(
      await Measurement.time("actor-dictionary", actions: sends) {
        for id in ids {
          await dictionary.actors.withLock { $0[id] }.unsafelyUnwrapped.send(.increment)
        }
      })
    run.progress.begin(run.label("store-array"), total: sends)
    baselines.append(
      await Measurement.time("store-array", actions: sends) {
        for id in ids { await stores[id].send(.increment) }
      })
    run.progress.begin(run.label("actor-array"), total: sends)
    baselines.append(
      await Measurement.time("actor-array", actions: sends) {
        for id in ids { await actors[id].send(.increment) }
      })

    // Each store and each actor counted its first send and its share of the others: a lost
    // or doubled send shows in the totals.
    var storeTotal = 0
    for store in stores { storeTotal &+= await store.state.count }
    var actorTotal = 0
    for actor in actors { actorTotal &+= await actor.currentState.count }
    try checkCount(
      storeTotal, expected: storeCount + sends * (spoolDrives + 1), run.label("spool"))
    try checkCount(actorTotal, expected: storeCount + 2 * sends, run.label("actors"))
    await registry.shutdown(deadline: .now)
    return [
      run.report(
        spool, baselines: baselines,
        parameters: [
          "stores": String(storeCount),
          "send": "registry.send(.increment, to: id), ids drawn at random",
        ])
    ]
  }

  final class LockedActors: Sendable {
    let actors = Mutex<[Int: PlainActorStore<EntityFeature>]>([:])
  }

  /// `count` IDs below `bound`, from a fixed-seed xorshift generator: every run sends the
  /// same sequence.
  static func randomIDs(count: Int, below bound: Int) -> [Int] {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    return (0..<count).map { _ in
      state ^= state << 13
      state ^= state >> 7
      state ^= state << 17
      return Int(state % UInt64(bound))
    }
  }
}

/// A server's entity, as ``ManyStoresWorkload`` sends to it: a counter whose reducer carries a
/// hold time and a clock dependency (as a feature with a timer does), which its reduce does
/// not read.
struct EntityFeature: Reducer, Sendable {
  struct State: Sendable {
    var count = 0
  }

  enum Action: Sendable {
    case increment
  }

  var holdDuration: Duration = .seconds(30)
  @Dependency(\.continuousClock) var clock

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .increment:
      state.count &+= 1
    }
    return .none
  }
}

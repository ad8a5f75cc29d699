#if canImport(Glibc)
  import Glibc
#endif
import ConcurrencyExtras
@testable import SpoolCore
import Synchronization
import Testing

/// The store's drain runs on demand: an idle store has none, the idle→busy transition starts
/// one, and it ends once the queue is empty. Producers racing a drain that ends must never
/// strand an action, and two drains must never run at once.
///
/// No `finish()` before the checks of the racing tests: `finish` drains the queue itself, and
/// would hide an action that no drain was started for. They read the state (which takes the
/// store's lock, and drains nothing) until every action was reduced, within a bound that fails
/// the test rather than hang it. The bound (``bound``) is far above any drain's time, for a
/// ThreadSanitizer run of the whole suite beside another build stalls every test for minutes;
/// it is below the time limit, so that a stranded action is reported as one.
@Suite(.timeLimit(.minutes(10)))
struct DrainOnDemandTests {
  /// How long, in seconds, a racing test waits for its actions to be reduced.
  static let bound: UInt64 = 360

  typealias ChecksumStore = Store<ChecksumFeature.State, ChecksumFeature.Action>

  /// A store of ``ChecksumFeature``: on a ``PoolSerialExecutor`` (every action goes through
  /// the queue, and the drain ends as soon as it finds nothing), or on its own queue (idle
  /// producers reduce on their own thread, the drain spins a little before it ends).
  static func makeStore(producers: Int, onExecutor: Bool) -> ChecksumStore {
    let options = StoreOptions<ChecksumFeature.Action>(
      executor: onExecutor ? PoolSerialExecutor() : nil)
    return Store(initialState: ChecksumFeature.State(producers: producers), options: options) {
      ChecksumFeature()
    }
  }

  static func root(of store: ChecksumStore) -> RootCore<ChecksumFeature> {
    guard let core = store.core as? RootCore<ChecksumFeature> else {
      preconditionFailure("a root store's core is a RootCore")
    }
    return core
  }

  /// Reads the state until `done` holds for it or `seconds` have passed; returns the last
  /// state read.
  static func state(
    of store: ChecksumStore, within seconds: UInt64,
    until done: (ChecksumFeature.State) -> Bool
  ) async -> ChecksumFeature.State {
    let deadline = SpoolTime.now() + seconds * 1_000_000_000
    var state = await store.state
    while !done(state) && SpoolTime.now() < deadline {
      try? await Task.sleep(for: .milliseconds(1))
      state = await store.state
    }
    return state
  }

  /// Waits until no drain runs, or `seconds` have passed; returns whether none runs.
  static func drainsEnd(_ core: RootCore<ChecksumFeature>, within seconds: UInt64) async -> Bool {
    let deadline = SpoolTime.now() + seconds * 1_000_000_000
    while core.drainsRunning != 0 && SpoolTime.now() < deadline {
      try? await Task.sleep(for: .milliseconds(1))
    }
    return core.drainsRunning == 0
  }

  @Test func anIdleStoreHasNoDrain() async {
    let store = Self.makeStore(producers: 1, onExecutor: false)
    let core = Self.root(of: store)
    // Created, and sent to while idle: reduced on the caller's thread, no drain started
    #expect(core.drainsStarted == 0)
    // (`send`, not `enqueue`: an `enqueue` from a thread that recently found some store busy
    // queues for a while, by design, and the queue starts a drain.)
    await store.send(.add(producer: 0, index: 0))
    await store.send(.add(producer: 0, index: 1))
    #expect(core.drainsStarted == 0)
    #expect(core.drainsRunning == 0)
    #expect(await store.state.count == 2)
    await store.shutdown()
  }

  /// On an executor every action is queued: each idle→busy transition starts a drain, which
  /// ends once the queue is empty and gives the ring back.
  @Test func aDrainEndsOnceTheQueueIsEmptyAndTheNextPushStartsAnother() async {
    let store = Self.makeStore(producers: 1, onExecutor: true)
    let core = Self.root(of: store)
    for round in 0..<3 {
      for index in 0..<300 { store.enqueue(.add(producer: 0, index: round * 300 + index)) }
      let state = await Self.state(of: store, within: Self.bound) {
        $0.count == (round + 1) * 300
      }
      #expect(state.count == (round + 1) * 300, "round \(round): an action was stranded")
      #expect(
        await Self.drainsEnd(core, within: Self.bound), "round \(round): the drain did not end")
      #expect(core.drainsStarted >= round + 1)
      // The ring grew for the burst (300 went through the overflow) and was given back.
      #expect(core.queue.tryLockConsumer())
      #expect(core.queue.currentCapacity == 0)
      core.queue.unlockConsumer()
    }
    #expect(!core.drainsOverlapped)
    #expect(await store.state.outOfOrder == 0)
    await store.shutdown()
  }

  /// Four producer threads outside Swift's pool push seeded bursts of 1 to 64 actions with
  /// pauses between them, so that the drain ends, and is started again, while other producers
  /// push (how often depends on the load; the test prints it): every action is reduced exactly
  /// once, in each producer's order, without `finish()`, and two drains never run at once.
  @Test(arguments: [true, false])
  func producersRacingTheDrainEndingStrandNothing(onExecutor: Bool) async {
    let producers = 4
    let perProducer = StressTests.underThreadSanitizer ? 4_000 : 40_000
    let total = producers * perProducer
    let seed = StressTests.seed
    print(
      "DrainOnDemandTests.producersRacingTheDrainEndingStrandNothing(\(onExecutor)): seed \(seed)")
    let store = Self.makeStore(producers: producers, onExecutor: onExecutor)
    let core = Self.root(of: store)
    let finished = Atomic<Int>(0)
    for producer in 0..<producers {
      startThread {
        var random = SeededGenerator(seed: seed &+ UInt64(producer) &+ 1)
        var index = 0
        while index < perProducer {
          let burst = min(Int(random.next() % 64) + 1, perProducer - index)
          for _ in 0..<burst {
            store.enqueue(.add(producer: producer, index: index))
            index += 1
          }
          // Pauses from none to about 2 ms: the drain ends when every producer pauses at
          // once, which the long ones make frequent even under ThreadSanitizer.
          switch random.next() % 4 {
          case 0: break
          case 1: sched_yield()
          case 2: usleep(UInt32(random.next() % 50))
          default: usleep(UInt32(random.next() % 2_000))
          }
        }
        finished.add(1, ordering: .releasing)
      }
    }
    let deadline = SpoolTime.now() + Self.bound * 1_000_000_000
    while finished.load(ordering: .acquiring) < producers && SpoolTime.now() < deadline {
      try? await Task.sleep(for: .milliseconds(1))
    }
    #expect(finished.load(ordering: .acquiring) == producers, "seed \(seed)")
    let state = await Self.state(of: store, within: Self.bound) { $0.count >= total }
    #expect(state.count == total, "seed \(seed): an action was stranded or lost")
    #expect(
      state.checksum == ChecksumFeature.checksum(producers: producers, perProducer: perProducer),
      "seed \(seed)")
    #expect(state.outOfOrder == 0, "seed \(seed): lost, duplicated or reordered actions")
    #expect(state.nextIndex == Array(repeating: perProducer, count: producers), "seed \(seed)")
    #expect(!core.drainsOverlapped, "seed \(seed): two drains ran at once")
    #expect(await Self.drainsEnd(core, within: Self.bound), "seed \(seed): the drain did not end")
    // How often the drain ended and was started again depends on the machine's load (a
    // loaded consumer may never catch up until the end): reported, not checked. The test
    // above checks that a drain ends and the next push starts another.
    print("producersRacingTheDrainEndingStrandNothing(\(onExecutor)): \(core.drainsStarted) drains")
    await store.shutdown()
  }

  /// Effects that send back while the drain is ending: each action's effect sends one action
  /// back from its own task, so that pushes keep arriving as drains end. Every action and
  /// every echo is reduced, without `finish()`.
  @Test func effectsSendingBackWhileTheDrainEndsStrandNothing() async {
    let count = StressTests.underThreadSanitizer ? 2_000 : 20_000
    let store = Store(initialState: EchoFeature.State(), options: StoreOptions(
      executor: PoolSerialExecutor())) {
      EchoFeature()
    }
    for index in 0..<count { store.enqueue(.ping(index)) }
    let deadline = SpoolTime.now() + Self.bound * 1_000_000_000
    var state = await store.state
    while state.pongs < count && SpoolTime.now() < deadline {
      try? await Task.sleep(for: .milliseconds(1))
      state = await store.state
    }
    #expect(state.pings == count)
    #expect(state.pongs == count, "an effect's action was stranded")
    await store.shutdown()
  }

  /// Shutdown of an idle store starts one last drain, which lets the core go: a released
  /// store leaves nothing behind (the queue holds its core only until then).
  @Test(arguments: [true, false])
  func aReleasedStoreIsDeinitializedWithItsCore(onExecutor: Bool) async {
    weak var weakCore: RootCore<ChecksumFeature>?
    do {
      let store = Self.makeStore(producers: 1, onExecutor: onExecutor)
      weakCore = Self.root(of: store)
      store.enqueue(.add(producer: 0, index: 0))
      let state = await Self.state(of: store, within: Self.bound) { $0.count == 1 }
      #expect(state.count == 1)
    }
    let deadline = SpoolTime.now() + Self.bound * 1_000_000_000
    while weakCore != nil && SpoolTime.now() < deadline {
      try? await Task.sleep(for: .milliseconds(1))
    }
    #expect(weakCore == nil, "the store's core outlived the store")
  }

  /// After `shutdown()`, actions still queued are dropped and no drain starts again.
  @Test func shutdownEndsDrainingForGood() async {
    let store = Self.makeStore(producers: 1, onExecutor: true)
    let core = Self.root(of: store)
    await store.shutdown()
    // The shutdown of an idle store starts the last drain, which cleans up and ends.
    let deadline = SpoolTime.now() + Self.bound * 1_000_000_000
    while core.drainsStarted == 0 && SpoolTime.now() < deadline {
      try? await Task.sleep(for: .milliseconds(1))
    }
    #expect(await Self.drainsEnd(core, within: Self.bound))
    let started = core.drainsStarted
    #expect(started == 1)
    withKnownIssue {
      store.enqueue(.add(producer: 0, index: 0))
    } matching: { issue in
      issue.description.contains("An action was enqueued to a store of")
        && issue.description.contains("after it was shut down")
    }
    #expect(core.drainsStarted == started)
    #expect(await store.state.count == 0)
  }
}

/// Each `ping` starts an effect that sends a `pong` back from its own task.
struct EchoFeature: Reducer {
  struct State: Equatable, Sendable {
    var pings = 0
    var pongs = 0
  }
  enum Action: Equatable, Sendable {
    case ping(Int)
    case pong(Int)
  }

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case let .ping(index):
      state.pings += 1
      return .run { send in
        await Task.yield()
        await send(.pong(index))
      }
    case .pong:
      state.pongs += 1
      return .none
    }
  }
}

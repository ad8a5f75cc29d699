#if canImport(Glibc)
  import Glibc
#endif
import ConcurrencyExtras
import Spool
import Testing

/// High-volume runs of the store's two concurrent paths: the multi-producer action queue, and
/// effect cancellation by ID. Bounded in count (and by the time limit), seeded where random.
///
/// Replay or vary the random order with `SPOOL_STRESS_SEED=<n>`; the seed in use is printed
/// and named in every failure.
@Suite(.timeLimit(.minutes(10)))
struct StressTests {
  static let seed = testSeed("SPOOL_STRESS_SEED", default: 0x5EED_0007)

  /// Whether the tests run under ThreadSanitizer (`.ci/tsan` sets `SPOOL_TSAN`), which makes
  /// every memory access many times slower: the producers test then sends 25,000 actions per
  /// producer instead of 250,000 (at 50,000 it took 16 s alone and 52 s within the whole suite
  /// on the 2-core reference machine, too close to its time limit). Same producers, observers
  /// and interleavings; fewer of them.
  static let underThreadSanitizer = getenv("SPOOL_TSAN") != nil

  // MARK: Many producers

  /// 8 producers × 250,000 actions (25,000 under TSan), each action enqueued or sent (seeded
  /// mix), while observers iterate `states`: every action is reduced exactly once, in each
  /// producer's order.
  @Test func eightProducersSendAndEnqueueWhileObserved() async {
    let producers = 8
    let perProducer = Self.underThreadSanitizer ? 25_000 : 250_000
    let total = producers * perProducer
    let seed = Self.seed
    print("StressTests.eightProducersSendAndEnqueueWhileObserved: seed \(seed)")

    let store = Store(initialState: ChecksumFeature.State(producers: producers)) {
      ChecksumFeature()
    }
    // Observers: counts never go backwards, every snapshot is consistent, and the last state
    // is delivered (each observer iterates until it sees the final count).
    let observers = (0..<3).map { observer in
      Task {
        var snapshots = 0
        var lastCount = -1
        var regressions = 0
        var inconsistent = 0
        for await state in store.states {
          snapshots += 1
          if state.count < lastCount { regressions += 1 }
          if state.outOfOrder != 0 || state.count != state.nextIndex.reduce(0, +) {
            inconsistent += 1
          }
          lastCount = state.count
          if state.count == total { break }
          // One observer is slow on purpose: it must be handed the latest state, not a backlog.
          if observer == 0 { try? await Task.sleep(for: .milliseconds(1)) }
        }
        return (snapshots, lastCount, regressions, inconsistent)
      }
    }
    let sent = LockIsolated(0)
    await withTaskGroup(of: Void.self) { group in
      for producer in 0..<producers {
        group.addTask {
          var random = SeededGenerator(seed: seed &+ UInt64(producer))
          var sentHere = 0
          for index in 0..<perProducer {
            let action = ChecksumFeature.Action.add(producer: producer, index: index)
            // About one action in sixteen goes through `send`, the others through `enqueue`.
            if random.next() & 15 == 0 {
              await store.send(action)
              sentHere += 1
            } else {
              store.enqueue(action)
            }
          }
          sent.withValue { [sentHere] in $0 += sentHere }
        }
      }
    }
    await store.finish()

    let state = await store.state
    let expectedChecksum = ChecksumFeature.checksum(producers: producers, perProducer: perProducer)
    #expect(state.count == total, "seed \(seed)")
    #expect(state.checksum == expectedChecksum, "seed \(seed)")
    #expect(state.outOfOrder == 0, "seed \(seed): lost, duplicated or reordered actions")
    #expect(state.nextIndex == Array(repeating: perProducer, count: producers), "seed \(seed)")
    // Both ways in were used.
    #expect(sent.value > 0 && sent.value < total, "seed \(seed)")

    for observer in observers {
      let (snapshots, lastCount, regressions, inconsistent) = await observer.value
      #expect(snapshots >= 2, "seed \(seed)")
      #expect(lastCount == total, "seed \(seed)")
      #expect(regressions == 0, "seed \(seed): an observer saw the count go backwards")
      #expect(inconsistent == 0, "seed \(seed): an observer saw an inconsistent state")
    }
    await store.shutdown()
  }

  /// Producers that keep finding the store idle and busy in turn: 6 tasks and 2 threads
  /// outside Swift's pool, each sending seeded bursts of 1 to 32 actions (`enqueue`, now and
  /// then `send`) with a yield or a pause between bursts, so that the store changes hands
  /// between producers that reduce on their own thread, producers that queue, and the drain
  /// loop, many thousands of times. Every action is reduced exactly once, in each producer's
  /// order.
  @Test func producersRacingTheIdleTransitionKeepCountAndOrder() async {
    let tasks = 6
    let threads = 2
    let producers = tasks + threads
    let perProducer = Self.underThreadSanitizer ? 5_000 : 50_000
    let seed = Self.seed
    print("StressTests.producersRacingTheIdleTransitionKeepCountAndOrder: seed \(seed)")
    let store = Store(initialState: ChecksumFeature.State(producers: producers)) {
      ChecksumFeature()
    }
    // The threads: plain pthreads calling `enqueue` from synchronous code.
    let threadsDone = AsyncStream<Void>.makeStream()
    let remaining = LockIsolated(threads)
    for thread in 0..<threads {
      let producer = tasks + thread
      startThread {
        var random = SeededGenerator(seed: seed &+ UInt64(producer))
        var index = 0
        while index < perProducer {
          let burst = min(Int(random.next() % 32) + 1, perProducer - index)
          for _ in 0..<burst {
            store.enqueue(.add(producer: producer, index: index))
            index += 1
          }
          if random.next() & 1 == 0 { sched_yield() } else { usleep(1) }
        }
        if remaining.withValue({ $0 -= 1; return $0 }) == 0 { threadsDone.continuation.finish() }
      }
    }
    await withTaskGroup(of: Void.self) { group in
      for producer in 0..<tasks {
        group.addTask {
          var random = SeededGenerator(seed: seed &+ UInt64(producer))
          var index = 0
          while index < perProducer {
            let burst = min(Int(random.next() % 32) + 1, perProducer - index)
            for _ in 0..<burst {
              let action = ChecksumFeature.Action.add(producer: producer, index: index)
              if random.next() & 15 == 0 {
                await store.send(action)
              } else {
                store.enqueue(action)
              }
              index += 1
            }
            await Task.yield()
          }
        }
      }
    }
    for await _ in threadsDone.stream {}
    await store.finish()

    let state = await store.state
    let expectedChecksum = ChecksumFeature.checksum(producers: producers, perProducer: perProducer)
    #expect(state.count == producers * perProducer, "seed \(seed)")
    #expect(state.checksum == expectedChecksum, "seed \(seed)")
    #expect(state.outOfOrder == 0, "seed \(seed): lost, duplicated or reordered actions")
    #expect(state.nextIndex == Array(repeating: perProducer, count: producers), "seed \(seed)")
    await store.shutdown()
  }

  // MARK: Effects cancelled by ID

  /// 100,000 effects, each cancellable by its own ID, started and cancelled in a seeded random
  /// order (every cancellation after its start), plus cancellations of IDs never started and
  /// repeated cancellations. Effects never cancelled during the run must survive it; at the
  /// end no effect is left running.
  @Test func hundredThousandEffectsCancelledByIDInRandomOrder() async throws {
    let effects = 100_000
    // IDs 0..<survivors are started but not cancelled until the random run is over.
    let survivors = 64
    let seed = Self.seed
    print("StressTests.hundredThousandEffectsCancelledByIDInRandomOrder: seed \(seed)")
    var random = SeededGenerator(seed: seed)
    let actions = Self.randomStartsAndCancels(
      effects: effects, survivors: survivors, using: &random)

    let live = LiveCounter()
    let survivorsEnded = LockIsolated(0)
    let store = Store(initialState: CancellationFeature.State()) {
      CancellationFeature(survivors: survivors, live: live, survivorsEnded: survivorsEnded)
    }
    for action in actions { store.enqueue(action) }
    // `send` is reduced after every action enqueued before it: all starts and cancellations
    // have been carried out when it returns.
    await store.send(.flush)
    #expect(await store.state.started == effects, "seed \(seed)")

    // The cancelled effects end; the survivors must not be among them.
    while store.runningEffectCount > survivors { try await Task.sleep(for: .milliseconds(1)) }
    #expect(store.runningEffectCount == survivors, "seed \(seed)")
    #expect(survivorsEnded.value == 0, "seed \(seed): a cancellation ended another ID's effect")

    // Every survivor's body has started (so each one's end is counted below).
    while live.count < survivors { try await Task.sleep(for: .milliseconds(1)) }
    for id in (0..<survivors).shuffled(using: &random) { store.enqueue(.cancel(id)) }
    await store.finish()
    #expect(store.runningEffectCount == 0, "seed \(seed)")
    #expect(live.count == 0, "seed \(seed): an effect body is still running")
    #expect(survivorsEnded.value == survivors, "seed \(seed)")
    await store.shutdown()
  }

  /// The start and the cancellation of each ID, in random order (the earlier of an ID's two
  /// places is its start), in windows of 10,000 IDs so that at most about 5,000 effects are
  /// alive at once; with about one stray cancellation (an ID never started, or cancelled
  /// already) per ten actions.
  static func randomStartsAndCancels(
    effects: Int, survivors: Int, using random: inout SeededGenerator
  ) -> [CancellationFeature.Action] {
    let window = 10_000
    var actions: [CancellationFeature.Action] = []
    actions.reserveCapacity(effects * 2 + effects / 5)
    // Survivors start first, and are only cancelled by the caller.
    for id in 0..<survivors { actions.append(.start(id)) }
    var low = survivors
    while low < effects {
      let high = min(low + window, effects)
      var places = Array(low..<high) + Array(low..<high)
      places.shuffle(using: &random)
      var started = Set<Int>()
      for id in places {
        if started.insert(id).inserted {
          actions.append(.start(id))
        } else {
          actions.append(.cancel(id))
          if random.next() % 10 == 0 {
            // A stray: cancelled again, or an ID no effect was started under.
            let stray = random.next() & 1 == 0 ? id : effects + Int(random.next() % 1_000)
            actions.append(.cancel(stray))
          }
        }
      }
      low = high
    }
    return actions
  }
}

/// Counts actions from several producers, with a checksum and each producer's next index.
struct ChecksumFeature: Reducer {
  struct State: Equatable, Sendable {
    var count = 0
    var checksum: UInt64 = 0
    /// The index each producer's next action must carry (actions arrive in producer order).
    var nextIndex: [Int]
    var outOfOrder = 0

    init(producers: Int) { nextIndex = Array(repeating: 0, count: producers) }
  }
  enum Action: Equatable, Sendable { case add(producer: Int, index: Int) }

  static func term(producer: Int, index: Int) -> UInt64 {
    mix(UInt64(producer) << 32 | UInt64(index))
  }

  /// The checksum of every producer's actions `0..<perProducer`, each once.
  static func checksum(producers: Int, perProducer: Int) -> UInt64 {
    var sum: UInt64 = 0
    for producer in 0..<producers {
      for index in 0..<perProducer { sum &+= term(producer: producer, index: index) }
    }
    return sum
  }

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case let .add(producer, index):
      state.count += 1
      state.checksum &+= Self.term(producer: producer, index: index)
      // A lost action leaves a gap, a duplicate repeats an index, a reorder does both.
      if state.nextIndex[producer] != index { state.outOfOrder += 1 }
      state.nextIndex[producer] = index + 1
      return .none
    }
  }
}

/// Starts one long-running effect per ID and cancels by ID.
struct CancellationFeature: Reducer {
  struct State: Equatable, Sendable { var started = 0 }
  enum Action: Equatable, Sendable {
    case start(Int)
    case cancel(Int)
    case flush
  }
  struct ID: Hashable, Sendable { let value: Int }

  let survivors: Int
  let live: LiveCounter
  let survivorsEnded: LockIsolated<Int>

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case let .start(id):
      state.started += 1
      let isSurvivor = id < survivors
      return .run { [live, survivorsEnded] _ in
        live.enter()
        defer {
          live.leave()
          if isSurvivor { survivorsEnded.withValue { $0 += 1 } }
        }
        await suspendUntilCancelled()
      }
      .cancellable(id: ID(value: id))
    case let .cancel(id):
      return .cancel(id: ID(value: id))
    case .flush:
      return .none
    }
  }
}

/// Runs `body` on a new detached pthread, outside Swift's cooperative pool.
func startThread(_ body: @escaping @Sendable () -> Void) {
  final class Box: Sendable {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
  }
  let context = Unmanaged.passRetained(Box(body)).toOpaque()
  var thread = pthread_t()
  let created = pthread_create(&thread, nil, { context in
    let box = Unmanaged<Box>.fromOpaque(context!).takeRetainedValue()
    box.body()
    return nil
  }, context)
  precondition(created == 0, "pthread_create failed: \(created)")
  pthread_detach(thread)
}

import Clocks
import ConcurrencyExtras
import Synchronization
import Testing

import class Foundation.Thread

@testable import SpoolCore

/// `StoreRegistry`: get-or-create, eviction (idle, bound, policy), holding a store against
/// eviction, shutdown.
// A bound on a hang, not on speed: a ThreadSanitizer run of the whole suite beside another
// build keeps every test of its parallel part waiting minutes for a thread, and the racing
// tests here then take minutes more.
@Suite(.timeLimit(.minutes(10)))
struct StoreRegistryTests {
  typealias Registry = StoreRegistry<Int, Ledger.State, Ledger.Action>

  /// A registry whose stores persist in `database` across evictions, as a journal's would:
  /// `makeStore` loads the last saved state, `onEvict` saves it.
  final class Harness: Sendable {
    let database = LockIsolated<[Int: Ledger.State]>([:])
    let creations = LockIsolated(0)
    let evictions = Signals<Int>()
    let sweeps = Signals<Void>()
    let gauge = LockIsolated<[Int]>([])
    let live = LiveCounter()
    let gate = Latch()
    let clock = TestClock()
    let registry: Registry

    init(
      configuration: StoreRegistryConfiguration = StoreRegistryConfiguration(),
      shardCount: Int = 1,
      makeStore: (@Sendable (Int) async throws -> Void)? = nil
    ) {
      let database = database
      let creations = creations
      let evictions = evictions
      let sweeps = sweeps
      let gauge = gauge
      let live = live
      let gate = gate
      registry = Registry(
        configuration: configuration, clock: clock, shardCount: shardCount,
        onEvict: { id, state in
          database.withValue { $0[id] = state }
          evictions.send(id)
        },
        onLiveStoresChange: { count in gauge.withValue { $0.append(count) } },
        onSweep: { sweeps.send(()) }
      ) { id in
        creations.withValue { $0 += 1 }
        try await makeStore?(id)
        let state = database.withValue { $0[id] } ?? Ledger.State()
        return Store(initialState: state) { Ledger(live: live, gate: gate) }
      }
    }

    var creationCount: Int { creations.value }
  }

  struct CreationFailed: Error, Equatable {}

  /// How many callers wait for the creation of `id` now.
  static func creationWaiters(_ registry: Registry, _ id: Int) -> Int {
    let key = RegistryKey(id)
    return registry.shards[registry.shardIndex(for: key)].contents.withLock { contents in
      guard case .creating(_, let waiters)? = contents.changing[key] else { return 0 }
      return waiters
    }
  }

  /// Advances the clock by a little more than the idle timeout (60 s) and waits for the
  /// sweeper's pass after it, until no store is live. Each pass sleeps until at most one
  /// timeout after it, so each advance wakes the sweeper, however late its last pass ran.
  static func sweepUntilEvicted(_ harness: Harness) async {
    while harness.registry.count > 0 {
      let passes = harness.sweeps.values.count
      await harness.clock.advance(by: .seconds(61))
      await harness.sweeps.wait(for: passes + 1)
    }
  }

  /// Holds store 1 in `withStore` until `leave` opens, then sends it `.add(1)`; returns once
  /// the store is held.
  static func holdStoreOne(_ registry: Registry) async -> (Task<Void, any Error>, Latch) {
    let entered = Latch()
    let leave = Latch()
    let holder = Task {
      try await registry.withStore(1) { store in
        entered.open()
        await leave.wait()
        await store.send(.add(1))
      }
    }
    await entered.wait()
    return (holder, leave)
  }

  @Test func concurrentFirstRequestsGetOneStoreCreatedOnce() async throws {
    let release = Latch()
    let harness = Harness { _ in await release.wait() }
    let registry = harness.registry
    try await withThrowingTaskGroup(of: Void.self) { group in
      for _ in 0..<8 {
        group.addTask { try await registry.send(.add(1), to: 7) }
      }
      while Self.creationWaiters(registry, 7) < 8 { await Task.yield() }
      release.open()
      try await group.waitForAll()
    }
    #expect(harness.creationCount == 1)
    #expect(registry.count == 1)
    #expect(try await registry.withStore(7) { await $0.state.count } == 8)
  }

  @Test func aFailedCreationGivesItsErrorToEveryWaiterAndIsRetried() async throws {
    let release = Latch()
    let fail = LockIsolated(true)
    let harness = Harness { _ in
      await release.wait()
      if fail.value { throw CreationFailed() }
    }
    let registry = harness.registry
    let failures = await withTaskGroup(of: Bool.self) { group in
      for _ in 0..<4 {
        group.addTask {
          do {
            try await registry.send(.add(1), to: 1)
            return false
          } catch {
            return error is CreationFailed
          }
        }
      }
      while Self.creationWaiters(registry, 1) < 4 { await Task.yield() }
      release.open()
      return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
    }
    #expect(failures == 4)
    #expect(harness.creationCount == 1)
    #expect(registry.count == 0)
    fail.setValue(false)
    let count = try await registry.send(.add(1), to: 1) { $0.count }
    #expect(count == 1)
    #expect(harness.creationCount == 2)
  }

  @Test func sendReadingReturnsTheStateAfterTheAction() async throws {
    let harness = Harness()
    #expect(try await harness.registry.send(.addPair, to: 3) { $0.log } == ["pair", "second"])
  }

  @Test func idleStoresAreEvictedAfterTheTimeoutWithTheirFinalState() async throws {
    let harness = Harness(configuration: StoreRegistryConfiguration(idleTimeout: .seconds(60)))
    let registry = harness.registry
    try await registry.send(.add(2), to: 1)
    try await registry.send(.add(3), to: 2)
    await harness.sweeps.wait(for: 1)
    await Self.sweepUntilEvicted(harness)
    let evicted = await harness.evictions.wait(for: 2)
    #expect(Set(evicted) == [1, 2])
    #expect(registry.count == 0)
    #expect(harness.database.value[1]?.count == 2)
    #expect(harness.database.value[2]?.count == 3)
    #expect(harness.gauge.value.last == 0)
    // The next request makes a new store from the saved state.
    #expect(try await registry.send(.add(1), to: 1) { $0.count } == 3)
    #expect(harness.creationCount == 3)
  }

  @Test func aStoreUsedSinceTheLastSweepStaysOneMoreTimeout() async throws {
    let harness = Harness(configuration: StoreRegistryConfiguration(idleTimeout: .seconds(60)))
    let registry = harness.registry
    try await registry.send(.add(1), to: 1)
    await harness.sweeps.wait(for: 1)
    await harness.clock.advance(by: .seconds(30))
    try await registry.send(.add(1), to: 1)
    await harness.clock.advance(by: .seconds(31))
    await harness.sweeps.wait(for: 2)
    #expect(harness.evictions.values.isEmpty)
    #expect(registry.count == 1)
    await Self.sweepUntilEvicted(harness)
    #expect(await harness.evictions.wait(for: 1) == [1])
    #expect(harness.database.value[1]?.count == 2)
  }

  /// Uses between two passes write the store's recency once (the first of them); many uses
  /// in each of several intervals, through the locked lookup and the published snapshot,
  /// keep the store live every time.
  @Test func repeatedUsesBetweenSweepsKeepTheStoreEachTime() async throws {
    let harness = Harness(configuration: StoreRegistryConfiguration(idleTimeout: .seconds(60)))
    let registry = harness.registry
    try await registry.send(.add(1), to: 1)
    await harness.sweeps.wait(for: 1)
    for interval in 0..<3 {
      await harness.clock.advance(by: .seconds(30))
      for _ in 0..<40 {
        // A closure of this type matches only the synchronous overload.
        let touch: (Store<Ledger.State, Ledger.Action>) -> Int = { _ in 1 }
        #expect(try await registry.withStore(1, touch) == 1)
      }
      try await registry.send(.add(1), to: 1)
      await harness.clock.advance(by: .seconds(31))
      await harness.sweeps.wait(for: interval + 2)
      #expect(harness.evictions.values.isEmpty)
      #expect(registry.count == 1)
    }
    await Self.sweepUntilEvicted(harness)
    #expect(await harness.evictions.wait(for: 1) == [1])
    #expect(harness.database.value[1]?.count == 4)
  }

  @Test func aStoreWithRunningEffectsIsKeptUnderKeepStore() async throws {
    let harness = Harness(configuration: StoreRegistryConfiguration(idleTimeout: .seconds(60)))
    let registry = harness.registry
    try await registry.send(.startLongEffect, to: 1)
    await harness.sweeps.wait(for: 1)
    await harness.clock.advance(by: .seconds(61))
    await harness.sweeps.wait(for: 2)
    #expect(harness.evictions.values.isEmpty)
    #expect(registry.count == 1)
    await registry.shutdown(deadline: .now)
    #expect(harness.live.count == 0)
    #expect(harness.evictions.values == [1])
  }

  @Test func aStoreWithRunningEffectsIsEvictedUnderCancelEffects() async throws {
    let harness = Harness(
      configuration: StoreRegistryConfiguration(
        idleTimeout: .seconds(60), runningEffects: .cancelEffects))
    let registry = harness.registry
    let task = try await registry.send(.startLongEffect, to: 1)
    await harness.sweeps.wait(for: 1)
    await Self.sweepUntilEvicted(harness)
    #expect(await harness.evictions.wait(for: 1) == [1])
    await task.finish()
    #expect(task.isCancelled)
    #expect(harness.live.count == 0)
    #expect(registry.count == 0)
  }

  @Test func aHeldStoreIsNotEvictedWhileHeld() async throws {
    let harness = Harness(configuration: StoreRegistryConfiguration(idleTimeout: .seconds(60)))
    let registry = harness.registry
    let (holder, leave) = await Self.holdStoreOne(registry)
    await harness.sweeps.wait(for: 1)
    await harness.clock.advance(by: .seconds(120))
    await harness.sweeps.wait(for: 2)
    #expect(harness.evictions.values.isEmpty)
    leave.open()
    try await holder.value
    await Self.sweepUntilEvicted(harness)
    #expect(await harness.evictions.wait(for: 1) == [1])
    #expect(harness.database.value[1]?.count == 1)
  }

  @Test func aStoreHeldAcrossSweepsStaysOneTimeoutAfterItsRelease() async throws {
    let harness = Harness(configuration: StoreRegistryConfiguration(idleTimeout: .seconds(60)))
    let registry = harness.registry
    let (holder, leave) = await Self.holdStoreOne(registry)
    await harness.sweeps.wait(for: 1)
    await harness.clock.advance(by: .seconds(60))
    await harness.sweeps.wait(for: 2)
    leave.open()
    try await holder.value
    await harness.clock.advance(by: .seconds(60))
    await harness.sweeps.wait(for: 3)
    #expect(harness.evictions.values.isEmpty)
    #expect(registry.count == 1)
    await Self.sweepUntilEvicted(harness)
    #expect(await harness.evictions.wait(for: 1) == [1])
  }

  @Test func evictNowEvictsALiveStoreWithItsFinalState() async throws {
    let harness = Harness()
    let registry = harness.registry
    try await registry.send(.add(4), to: 1)
    try await registry.send(.add(5), to: 2)
    #expect(await registry.evict(1))
    #expect(harness.evictions.values == [1])
    #expect(harness.database.value[1]?.count == 4)
    #expect(registry.count == 1)
    // Nothing left to evict: no second eviction, and an unknown ID is no error.
    #expect(await registry.evict(1) == false)
    #expect(await registry.evict(99) == false)
    #expect(harness.evictions.values == [1])
    // The next call makes a new store from the saved state.
    #expect(try await registry.send(.add(1), to: 1) { $0.count } == 5)
    #expect(harness.creationCount == 3)
  }

  @Test func evictNowLeavesAHeldStoreAlone() async throws {
    let harness = Harness()
    let registry = harness.registry
    let (holder, leave) = await Self.holdStoreOne(registry)
    #expect(await registry.evict(1) == false)
    #expect(registry.count == 1)
    leave.open()
    try await holder.value
    #expect(await registry.evict(1))
    #expect(harness.database.value[1]?.count == 1)
  }

  @Test func evictNowKeepsAStoreWithRunningEffectsUnderKeepStore() async throws {
    let harness = Harness()
    let registry = harness.registry
    try await registry.send(.startLongEffect, to: 1)
    #expect(await registry.evict(1) == false)
    #expect(harness.evictions.values.isEmpty)
    await registry.shutdown(deadline: .now)
    #expect(harness.evictions.values == [1])
    // Once shut down, there is nothing for it to evict.
    #expect(await registry.evict(1) == false)
  }

  @Test func theBoundEvictsTheLeastRecentlyUsedStore() async throws {
    let harness = Harness(configuration: StoreRegistryConfiguration(maximumLiveStores: 2))
    let registry = harness.registry
    try await registry.send(.add(1), to: 1)
    try await registry.send(.add(1), to: 2)
    try await registry.send(.add(1), to: 1)
    try await registry.send(.add(1), to: 3)
    #expect(await harness.evictions.wait(for: 1) == [2])
    #expect(registry.count == 2)
    try await registry.send(.add(1), to: 4)
    #expect(await harness.evictions.wait(for: 2) == [2, 1])
    #expect(harness.database.value[1]?.count == 2)
  }

  /// Two IDs share a bound of one store: every send evicts the other ID's store, and sends to
  /// both race the evictions. Every action lands in a live store: the saved states count all.
  @Test func evictionsRacingSendsLoseNoAction() async throws {
    let harness = Harness(configuration: StoreRegistryConfiguration(maximumLiveStores: 1))
    let registry = harness.registry
    let senders = 4
    let perSender = 500
    try await withThrowingTaskGroup(of: Void.self) { group in
      for sender in 0..<senders {
        group.addTask {
          for index in 0..<perSender {
            if index.isMultiple(of: 2) {
              try await registry.send(.add(1), to: sender % 2)
            } else {
              _ = try await registry.send(.add(1), to: sender % 2) { $0.count }
            }
          }
        }
      }
      try await group.waitForAll()
    }
    await registry.shutdown(deadline: .now)
    let saved = harness.database.value
    #expect(saved[0]?.count == senders / 2 * perSender)
    #expect(saved[1]?.count == senders / 2 * perSender)
    #expect(harness.creationCount == harness.evictions.values.count)
  }

  /// Sends through the registry while another producer floods the same store, so that sends
  /// can find it busy and then wait for it on its executor (the flood does not force it): each
  /// read sees its own action right after it, and no action is lost.
  @Test func sendsToABusyStoreWaitForItAndLoseNoAction() async throws {
    let harness = Harness()
    let registry = harness.registry
    let store = try await registry.withStore(1) { $0 }
    let rounds = StressTests.underThreadSanitizer ? 500 : 3_000
    let otherActions = StressTests.underThreadSanitizer ? 20_000 : 100_000
    let otherDone = Latch()
    let other = Thread {
      for _ in 0..<otherActions { store.enqueue(.other("o")) }
      otherDone.open()
    }
    other.start()
    for round in 0..<rounds {
      if round.isMultiple(of: 2) {
        try await registry.send(.add(1), to: 1)
      } else {
        let (count, last) = try await registry.send(.add(1), to: 1) { ($0.count, $0.log.last) }
        #expect(count == round + 1)
        #expect(last == "add")
      }
    }
    await otherDone.wait()
    await registry.shutdown(deadline: .now)
    let saved = try #require(harness.database.value[1])
    #expect(saved.count == rounds)
    #expect(saved.log.count == rounds + otherActions)
  }

  /// Idle eviction racing sends: the clock advances past the timeout while senders send.
  @Test func idleEvictionRacingSendsLosesNoAction() async throws {
    let harness = Harness(configuration: StoreRegistryConfiguration(idleTimeout: .seconds(1)))
    let registry = harness.registry
    let rounds = 300
    try await withThrowingTaskGroup(of: Void.self) { group in
      for id in 0..<4 {
        group.addTask {
          for _ in 0..<rounds { try await registry.send(.add(1), to: id) }
        }
      }
      group.addTask {
        for _ in 0..<rounds {
          await harness.clock.advance(by: .seconds(1))
          await Task.yield()
        }
      }
      try await group.waitForAll()
    }
    await registry.shutdown(deadline: .now)
    for id in 0..<4 {
      #expect(harness.database.value[id]?.count == rounds)
    }
  }

  @Test func shutdownRefusesCallsAndIsHarmlessTwice() async throws {
    let harness = Harness()
    let registry = harness.registry
    try await registry.send(.add(4), to: 1)
    try await registry.send(.add(5), to: 2)
    await registry.shutdown(deadline: .now + .seconds(30))
    await registry.shutdown(deadline: .now)
    #expect(registry.isShutDown)
    #expect(registry.count == 0)
    #expect(Set(harness.evictions.values) == [1, 2])
    #expect(harness.evictions.values.count == 2)
    #expect(harness.database.value[1]?.count == 4)
    let creations = harness.creationCount
    await #expect(throws: StoreRegistryError.self) {
      try await registry.send(.add(1), to: 3)
    }
    do {
      try await registry.withStore(1) { _ in }
      Issue.record("A shut-down registry gave out a store")
    } catch let error as StoreRegistryError {
      #expect(error.code == .shutDown)
      #expect(error.description.contains("shut down"))
    }
    #expect(harness.creationCount == creations)
  }

  /// Shutdown comes while sends create and evict stores (a bound of one, two IDs): every send
  /// either throws `shutDown` or was reduced, and the states saved count exactly those.
  @Test func shutdownDuringCreationsAndEvictionsKeepsEverySuccessfulSend() async throws {
    let harness = Harness(configuration: StoreRegistryConfiguration(maximumLiveStores: 1))
    let registry = harness.registry
    let started = Signals<Void>()
    let succeeded = try await withThrowingTaskGroup(of: Int.self) { group in
      for sender in 0..<4 {
        group.addTask {
          var count = 0
          for index in 0..<2_000 {
            if index == 100 { started.send(()) }
            do {
              try await registry.send(.add(1), to: sender % 2)
              count += 1
            } catch let error as StoreRegistryError {
              #expect(error.code == .shutDown)
              break
            }
          }
          return count
        }
      }
      await started.wait(for: 4)
      await registry.shutdown(deadline: .now)
      return try await group.reduce(0, +)
    }
    let saved = harness.database.value.values.reduce(0) { $0 + $1.count }
    #expect(saved == succeeded)
    #expect(registry.count == 0)
  }

  @Test func shutdownCancelsEffectsAtTheDeadline() async throws {
    let harness = Harness()
    let registry = harness.registry
    let task = try await registry.send(.startLongEffect, to: 1)
    await registry.shutdown(deadline: .now)
    #expect(task.isCancelled)
    #expect(harness.live.count == 0)
    #expect(harness.evictions.values == [1])
  }

  @Test func shutdownLetsEffectsEndBeforeTheDeadline() async throws {
    let harness = Harness()
    let registry = harness.registry
    let task = try await registry.send(.startGatedEffect, to: 1)
    let shutdown = Task { await registry.shutdown(deadline: .now + .seconds(3600)) }
    while !registry.isShutDown { await Task.yield() }
    harness.gate.open()
    await shutdown.value
    #expect(!task.isCancelled)
    #expect(harness.database.value[1]?.count == 1)
  }

  @Test func shutdownWaitsForCallsInFlight() async throws {
    let harness = Harness()
    let registry = harness.registry
    let (holder, leave) = await Self.holdStoreOne(registry)
    let shutdown = Task { await registry.shutdown(deadline: .now + .seconds(3600)) }
    while !registry.isShutDown { await Task.yield() }
    leave.open()
    try await holder.value
    await shutdown.value
    #expect(harness.database.value[1]?.count == 1)
  }

  /// The deadline cancels effects, not calls: a call holding its store past it ends first,
  /// and its action is reduced.
  @Test func aCallHoldingItsStorePastTheDeadlineEndsFirst() async throws {
    let harness = Harness()
    let registry = harness.registry
    let effect = try await registry.send(.startLongEffect, to: 1)
    let (holder, leave) = await Self.holdStoreOne(registry)
    let shutdown = Task { await registry.shutdown(deadline: .now) }
    await effect.finish()
    #expect(effect.isCancelled)
    #expect(harness.evictions.values.isEmpty)
    leave.open()
    try await holder.value
    await shutdown.value
    #expect(harness.evictions.values == [1])
    #expect(harness.database.value[1]?.count == 1)
  }

  @Test func theBoundPassesOverHeldStores() async throws {
    let harness = Harness(configuration: StoreRegistryConfiguration(maximumLiveStores: 1))
    let registry = harness.registry
    let (holder, leave) = await Self.holdStoreOne(registry)
    // Store 1 is held and the least recently used: the bound takes store 2 instead, once
    // its creation no longer holds it.
    try await registry.send(.add(1), to: 2)
    try await registry.send(.add(1), to: 3)
    #expect(await harness.evictions.wait(for: 1) == [2])
    leave.open()
    try await holder.value
    await registry.shutdown(deadline: .now)
    #expect(harness.database.value[1]?.count == 1)
    #expect(harness.database.value[2]?.count == 1)
  }

  /// The synchronous `withStore` under a bound of one store for two IDs: every call evicts the
  /// other ID's store, and each action enqueued in a body is reduced by the store it was
  /// enqueued to before that store's final state is saved.
  @Test func actionsEnqueuedInSynchronousBodiesSurviveEvictions() async throws {
    let harness = Harness(configuration: StoreRegistryConfiguration(maximumLiveStores: 1))
    let registry = harness.registry
    let senders = 4
    let perSender = 300
    try await withThrowingTaskGroup(of: Void.self) { group in
      for sender in 0..<senders {
        group.addTask {
          for _ in 0..<perSender {
            // A closure of this type matches only the synchronous overload.
            let enqueue: (Store<Ledger.State, Ledger.Action>) -> Bool = { store in
              store.enqueue(.add(1))
              return true
            }
            let held = try await registry.withStore(sender % 2, enqueue)
            #expect(held)
          }
        }
      }
      try await group.waitForAll()
    }
    await registry.shutdown(deadline: .now)
    let saved = harness.database.value
    #expect(saved[0]?.count == senders / 2 * perSender)
    #expect(saved[1]?.count == senders / 2 * perSender)
  }

  @Test func aSynchronousBodysErrorReachesTheCallerAndReleasesTheStore() async throws {
    let harness = Harness()
    let registry = harness.registry
    struct Refused: Error, Equatable {}
    await #expect(throws: Refused.self) {
      try await registry.withStore(1) { store -> Int in
        store.enqueue(.add(2))
        throw Refused()
      }
    }
    // Nothing holds the store any more: it can be evicted, with the enqueued action reduced.
    #expect(await registry.evict(1))
    #expect(harness.database.value[1]?.count == 2)
  }

  @Test func theGaugeFollowsTheLiveCount() async throws {
    let harness = Harness(configuration: StoreRegistryConfiguration(maximumLiveStores: 2))
    let registry = harness.registry
    for id in 0..<5 { try await registry.send(.add(1), to: id) }
    await harness.evictions.wait(for: 3)
    #expect(registry.count == 2)
    #expect(harness.gauge.value.last == 2)
    #expect(harness.gauge.value.allSatisfy { $0 <= 3 })
    await registry.shutdown(deadline: .now)
    #expect(harness.gauge.value.last == 0)
  }
}

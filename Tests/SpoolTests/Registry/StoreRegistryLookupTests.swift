import Dispatch
import Foundation
import Synchronization
import Testing

@testable import SpoolCore

/// `StoreRegistry`'s lookups without the shard's lock: the published snapshot, the holds on
/// slots, and the release of snapshots taken down only after the reads that may hold them.
// A bound on a hang, not on speed (see StoreRegistryTests).
@Suite(.timeLimit(.minutes(10)))
struct StoreRegistryLookupTests {
  typealias Harness = StoreRegistryTests.Harness

  /// What a test watches to see an object freed.
  final class WeakReference {
    weak var object: AnyObject?
  }

  /// Enough lookups of a live store for its shard to publish a snapshot (a shard publishes
  /// after 16 lookups that took its lock, with fewer than 32 live stores).
  static func lookUp(_ registry: StoreRegistryTests.Registry, _ id: Int, times: Int = 16)
    async throws
  {
    for _ in 0..<times {
      try await registry.withStore(id) { _ in }
    }
  }

  static func published(_ registry: StoreRegistryTests.Registry, _ id: Int) -> Bool {
    let shard = registry.shards[registry.shardIndex(for: RegistryKey(id))]
    return shard.published.load(ordering: .sequentiallyConsistent) != nil
  }

  @Test func aShardPublishesAfterLookupsAndAChangeTakesTheSnapshotDown() async throws {
    let harness = Harness()
    let registry = harness.registry
    try await registry.send(.add(1), to: 1)
    #expect(!Self.published(registry, 1))
    try await Self.lookUp(registry, 1)
    #expect(Self.published(registry, 1))
    // Found in the snapshot: a hold is taken and given back, the store stays the same.
    #expect(try await registry.send(.add(1), to: 1) { $0.count } == 2)
    try await registry.send(.add(1), to: 2)
    #expect(!Self.published(registry, 1))
    #expect(await registry.evict(1))
    #expect(harness.database.value[1]?.count == 2)
    // No read is in progress: what was taken down is released at once.
    #expect(registry.readers.retiredCount.load(ordering: .relaxed) == 0)
  }

  /// A snapshot taken down while a read is in progress stays until that read ends.
  @Test func aSnapshotTakenDownOutlivesTheReadsInProgress() async throws {
    let harness = Harness()
    let registry = harness.registry
    let readers = registry.readers
    try await registry.send(.add(1), to: 1)
    try await Self.lookUp(registry, 1)
    let shard = registry.shards[0]
    let snapshot = WeakReference()
    snapshot.object = shard.published.load(ordering: .sequentiallyConsistent)?
      .takeUnretainedValue()
    #expect(snapshot.object != nil)
    // A read, as `RegistryReaders.read` counts it, left open across the eviction's beginning
    // (which takes the snapshot down); the eviction itself waits for it to end.
    let line = readers.lines[0]
    let odd = readers.phase.load(ordering: .relaxed) & 1 != 0
    line.enter(odd: odd)
    let eviction = Task { await registry.evict(1) }
    while registry.count != 0 { try await Task.sleep(for: .milliseconds(1)) }
    readers.reclaim()
    #expect(snapshot.object != nil)
    #expect(readers.retiredCount.load(ordering: .relaxed) > 0)
    line.exit(odd: odd)
    #expect(await eviction.value)
    readers.reclaim()
    #expect(snapshot.object == nil)
    #expect(readers.retiredCount.load(ordering: .relaxed) == 0)
  }

  /// A call that finds its store in a snapshot once the registry is shutting down gives its
  /// hold back and throws.
  @Test func aLookupInASnapshotSeesTheShutdown() async throws {
    let harness = Harness()
    let registry = harness.registry
    try await registry.send(.add(1), to: 1)
    try await Self.lookUp(registry, 1)
    #expect(Self.published(registry, 1))
    // The flag alone, as the shutdown sets it before it collects the stores.
    registry.shuttingDown.store(true, ordering: .sequentiallyConsistent)
    switch Result(catching: { try registry.holdLive(RegistryKey(1)) }) {
    case .success(let held):
      // Given back, so that the shutdown below does not wait for it forever.
      held?.takeUnretainedValue().release()
      Issue.record("a lookup in a snapshot held its store after the shutdown flag was set")
    case .failure(let error):
      #expect(error is StoreRegistryError)
    }
    let slot = registry.shards[0].contents.withLock { $0.live[RegistryKey(1)] }
    #expect(slot?.isHeld == false)
    registry.shuttingDown.store(false, ordering: .sequentiallyConsistent)
    await registry.shutdown(deadline: .now)
    #expect(harness.database.value[1]?.count == 1)
  }

  /// The rule of a slot's hold word, step by step: a store taken for eviction refuses holds,
  /// and a held store cannot be taken.
  @Test func aSlotTakenForEvictionRefusesHoldsAndAHeldOneCannotBeTaken() async throws {
    let harness = Harness()
    let registry = harness.registry
    try await registry.send(.add(1), to: 1)
    let found = registry.shards[registry.shardIndex(for: RegistryKey(1))].contents.withLock {
      $0.live[RegistryKey(1)]
    }
    let slot = try #require(found)
    #expect(slot.tryTake())
    let heldWhileTaken = slot.tryHold()
    // Given back if taken after all, so that the shutdown below does not wait for it forever.
    if heldWhileTaken { slot.release() }
    #expect(!heldWhileTaken)
    #expect(!slot.isHeld)
    slot.untake()
    #expect(slot.tryHold())
    #expect(!slot.tryTake())
    slot.release()
    #expect(!slot.isHeld)
    await registry.shutdown(deadline: .now)
    #expect(harness.database.value[1]?.count == 1)
  }

  /// How many sender tasks are still sending, for the evicting task of the race below.
  final class SendersLeft: Sendable {
    let count: Atomic<Int>
    init(_ count: Int) { self.count = Atomic(count) }
  }

  /// Lookups without the lock race evictions: four tasks send to 16 IDs over 8 shards (their
  /// shards publish snapshots as lookups come) while a fifth evicts the IDs in turn for as
  /// long as they send (at most 200,000 rounds). Every action lands in a live store: the saved
  /// states count them all.
  @Test func evictionsRacingLookupsWithoutTheLockLoseNoAction() async throws {
    let harness = Harness(shardCount: 8)
    let registry = harness.registry
    let senders = 4
    let perSender = 10_000
    let ids = 16
    let sendersLeft = SendersLeft(senders)
    let evictions = try await withThrowingTaskGroup(of: Int.self) { group in
      for sender in 0..<senders {
        group.addTask {
          defer { sendersLeft.count.subtract(1, ordering: .sequentiallyConsistent) }
          for index in 0..<perSender {
            let id = (index &* 5 &+ sender) % ids
            if index.isMultiple(of: 2) {
              try await registry.send(.add(1), to: id)
            } else {
              // A closure of this type matches only the synchronous overload.
              let enqueue: (Store<Ledger.State, Ledger.Action>) -> Void = { store in
                store.enqueue(.add(1))
              }
              try await registry.withStore(id, enqueue)
            }
          }
          return 0
        }
      }
      group.addTask {
        var evicted = 0
        var round = 0
        while round < 200_000 && sendersLeft.count.load(ordering: .sequentiallyConsistent) > 0 {
          if await registry.evict(round % ids) { evicted += 1 }
          round += 1
          await Task.yield()
        }
        return evicted
      }
      return try await group.reduce(0, +)
    }
    let liveAtTheEnd = registry.count
    await registry.shutdown(deadline: .now)
    let saved = harness.database.value.values.reduce(0) { $0 + $1.count }
    #expect(saved == senders * perSender)
    // Each store created was evicted once, by `evict` or by the shutdown.
    #expect(evictions > 0)
    #expect(harness.creationCount == evictions + liveAtTheEnd)
    #expect(harness.creationCount == harness.evictions.values.count)
  }

  // MARK: Synchronous bodies without a hold

  /// A synchronous `withStore` body, blocked on `proceed` once it signalled `entered`, in a
  /// task that runs on a thread of its own (``ThreadTaskExecutor``): blocked on one of Swift's
  /// pool threads, two such bodies of tests running at once would block the whole pool, and
  /// with it the tasks that let them go. `body` runs after `proceed`.
  static func blockedBody(
    _ registry: StoreRegistryTests.Registry, _ id: Int,
    then body: @escaping @Sendable (Store<Ledger.State, Ledger.Action>) -> Void
  ) async throws -> (task: Task<Void, any Error>, proceed: DispatchSemaphore) {
    let entered = DispatchSemaphore(value: 0)
    let proceed = DispatchSemaphore(value: 0)
    let executor = ThreadTaskExecutor()
    let task = Task(executorPreference: executor) {
      defer { executor.stop() }
      try await registry.withStore(id) { store in
        entered.signal()
        proceed.wait()
        body(store)
      }
    }
    while entered.wait(timeout: .now()) == .timedOut {
      try await Task.sleep(for: .milliseconds(1))
    }
    return (task, proceed)
  }

  /// Waits until the eviction of the only store has begun (the live count drops when it
  /// takes the store), then a little longer: time for an eviction that did not wait for the
  /// body to shut the store down.
  static func waitForTheEvictionToBegin(_ registry: StoreRegistryTests.Registry) async throws {
    while registry.count != 0 { try await Task.sleep(for: .milliseconds(1)) }
    try await Task.sleep(for: .milliseconds(20))
  }

  /// A synchronous body uses its store without a hold, found in the snapshot: an eviction
  /// that takes the store meanwhile waits for the body to end, and the action the body
  /// enqueued is reduced by that store before its final state is saved.
  @Test func anEvictionWaitsForASynchronousBodyInProgress() async throws {
    let harness = Harness()
    let registry = harness.registry
    try await registry.send(.add(1), to: 1)
    try await Self.lookUp(registry, 1)
    #expect(Self.published(registry, 1))
    let (user, proceed) = try await Self.blockedBody(registry, 1) { $0.enqueue(.add(10)) }
    let eviction = Task { await registry.evict(1) }
    try await Self.waitForTheEvictionToBegin(registry)
    #expect(harness.evictions.values.isEmpty, "the store was evicted under a body using it")
    proceed.signal()
    try await user.value
    #expect(await eviction.value)
    #expect(harness.database.value[1]?.count == 11)
    await registry.shutdown(deadline: .now)
  }

  /// Under `keepStore`, an effect started by a synchronous body while an eviction waited for
  /// it keeps the store live: the eviction does not happen, and the store keeps its state.
  @Test func anEffectStartedByASynchronousBodyKeepsItsStoreFromEviction() async throws {
    let harness = Harness()
    let registry = harness.registry
    try await registry.send(.add(1), to: 1)
    try await Self.lookUp(registry, 1)
    let (user, proceed) = try await Self.blockedBody(registry, 1) {
      $0.enqueue(.startLongEffect)
    }
    let eviction = Task { await registry.evict(1) }
    try await Self.waitForTheEvictionToBegin(registry)
    proceed.signal()
    try await user.value
    #expect(await eviction.value == false)
    #expect(harness.evictions.values.isEmpty)
    #expect(registry.count == 1)
    // The same store, live again, with its effect running.
    #expect(try await registry.send(.add(1), to: 1) { $0.count } == 2)
    #expect(harness.creationCount == 1)
    #expect(try await registry.withStore(1) { $0.runningEffectCount } == 1)
    await registry.shutdown(deadline: .now)
    #expect(harness.database.value[1]?.count == 2)
  }

  /// The shutdown waits for a synchronous body in progress before it collects the stores: the
  /// action the body enqueued is in the state `onEvict` gets.
  @Test func theShutdownWaitsForASynchronousBodyInProgress() async throws {
    let harness = Harness()
    let registry = harness.registry
    try await registry.send(.add(1), to: 1)
    try await Self.lookUp(registry, 1)
    let (user, proceed) = try await Self.blockedBody(registry, 1) { $0.enqueue(.add(10)) }
    let shutdown = Task { await registry.shutdown(deadline: .now + .seconds(60)) }
    while !registry.isShutDown { try await Task.sleep(for: .milliseconds(1)) }
    try await Task.sleep(for: .milliseconds(20))
    #expect(harness.evictions.values.isEmpty, "the store was shut down under a body using it")
    proceed.signal()
    try await user.value
    await shutdown.value
    #expect(harness.database.value[1]?.count == 11)
  }
}

/// A task executor with a thread of its own, which runs its jobs one at a time until
/// `stop()`: for a test that blocks the thread on purpose.
final class ThreadTaskExecutor: TaskExecutor, Sendable {
  private let jobs = Mutex<(queue: [UnownedJob], stopped: Bool)>(([], false))
  private let available = DispatchSemaphore(value: 0)

  init() {
    Thread { [self] in runJobs() }.start()
  }

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    jobs.withLock { $0.queue.append(job) }
    available.signal()
  }

  /// Ends the thread once the jobs queued before are run.
  func stop() {
    jobs.withLock { $0.stopped = true }
    available.signal()
  }

  private func runJobs() {
    while true {
      available.wait()
      let next = jobs.withLock { jobs -> UnownedJob?? in
        if !jobs.queue.isEmpty { return .some(jobs.queue.removeFirst()) }
        return jobs.stopped ? .none : .some(nil)
      }
      guard let next else { return }
      next?.runSynchronously(on: asUnownedTaskExecutor())
    }
  }
}

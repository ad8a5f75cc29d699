#if canImport(Glibc)
  import Glibc
#endif
import ConcurrencyExtras
@testable import SpoolCore
import Testing

import class Foundation.Thread

/// A task that waits for a store's lock on its executor (a read, or a `send` while the store is
/// busy) gets it even while a producer floods the store: producers that would reduce on their
/// own thread push instead while someone waits, and the drain loop yields after each pass.
@Suite(.timeLimit(.minutes(10)))
struct LockWaiterTests {
  typealias GateStore = Store<GateFeature.State, GateFeature.Action>

  static func root(of store: GateStore) -> RootCore<GateFeature> {
    guard let core = store.core as? RootCore<GateFeature> else {
      preconditionFailure("a root store's core is a RootCore")
    }
    return core
  }

  /// Runs `body` on a new thread and returns once it has: a new thread has not found any store
  /// busy yet, so its `enqueue` takes an idle store's lock (no push backoff left from earlier).
  static func onNewThread(_ body: @escaping @Sendable () -> Void) async {
    let done = LockIsolated(false)
    let thread = Thread {
      body()
      done.setValue(true)
    }
    thread.start()
    while !done.value { await Task.yield() }
  }

  /// With a waiter recorded, an idle store's producer pushes (a drain reduces its action)
  /// where it would otherwise reduce on its own thread (no drain at all).
  @Test func producersPushWhileATaskWaitsForTheLock() async {
    let store = Store(initialState: GateFeature.State()) { GateFeature(gate: ReducerGate()) }
    let core = Self.root(of: store)
    await Self.onNewThread { store.enqueue(.add) }
    #expect(core.drainsStarted == 0, "an idle store's producer reduces on its own thread")

    core.queue.addWaiter()
    await Self.onNewThread { store.enqueue(.add) }
    core.queue.removeWaiter()
    // The drain is a task of its own: read until it has reduced the pushed action.
    while await store.state.count < 2 { await Task.yield() }
    #expect(core.drainsStarted == 1, "the producer pushed, and a drain reduced its action")
    await store.shutdown()
  }

  /// A read that waits while a producer holds the lock gets it before a flood that starts
  /// meanwhile is over: the count it reads is far below the flood's size. Before producers
  /// gave way to waiters, the flooding producer took the lock back between its own passes,
  /// and the read waited, in a clean-clone CI run with every core busy, for more than 12
  /// minutes (while the queue grew to 13.8 GB).
  ///
  /// Nothing here depends on timing: the flood is bounded in actions (it stops by itself), and
  /// whatever the scheduler does, a waiter is passed by at most a few drain passes (65,536
  /// actions each) before it gets the lock.
  @Test func aWaitingReadIsServedWhileAProducerFloods() async {
    let gate = ReducerGate()
    let store = Store(initialState: GateFeature.State()) { GateFeature(gate: gate) }
    let core = Self.root(of: store)
    let flood = StressTests.underThreadSanitizer ? 500_000 : 2_000_000

    // A producer holds the lock: its reducer waits for the gate, on its own thread.
    Thread { store.enqueue(.hold) }.start()
    while !gate.isHeld { await Task.yield() }

    let read = Task { await store.withState { $0.count } }
    while !core.queue.hasWaiters { await Task.yield() }

    let flooding = LockIsolated(true)
    Thread {
      for _ in 0..<flood { store.enqueue(.add) }
      flooding.setValue(false)
    }.start()
    gate.open()

    let count = await read.value
    #expect(count < flood, "the read waited for the whole flood (\(count) actions)")
    while flooding.value { await Task.yield() }
    await store.finish()
    #expect(await store.state.count == flood)
    #expect(!core.queue.hasWaiters)
  }
}

/// A gate that a reducer waits at, on its producer's own thread, until the test opens it.
final class ReducerGate: Sendable {
  private let held = LockIsolated(false)
  private let opened = LockIsolated(false)

  var isHeld: Bool { held.value }

  /// Called by the reducer: marks the lock held, then spins (yielding the thread) until the
  /// gate opens. Only ever on a thread the test started, never on one of Swift's pool threads.
  func wait() {
    held.setValue(true)
    while !opened.value { sched_yield() }
  }

  func open() { opened.setValue(true) }
}

struct GateFeature: Reducer {
  struct State: Equatable, Sendable { var count = 0 }
  enum Action: Equatable, Sendable {
    /// Waits at the gate, holding the store's lock, and counts nothing.
    case hold
    case add
  }

  let gate: ReducerGate

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .hold:
      gate.wait()
    case .add:
      state.count += 1
    }
    return .none
  }
}

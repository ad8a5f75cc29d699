import ConcurrencyExtras
import Dispatch
import Foundation
import Spool
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

private enum RunnerCancelID { case work }

/// A serial executor with a thread of its own, so that a reduce that blocks (``Gate``) holds
/// that thread and not one of the cooperative pool's (two on a 2-core machine: tests running
/// in parallel would otherwise block them all).
private final class ThreadSerialExecutor: SerialExecutor {
  private let jobs = Mutex<[UnownedJob]>([])
  private let available = DispatchSemaphore(value: 0)

  init() {
    let thread = Thread { [self] in runJobs() }
    thread.start()
  }

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    jobs.withLock { $0.append(job) }
    available.signal()
  }

  /// The thread's loop: one job per signal. The thread is never stopped: a store's drain
  /// loop still needs it to end after the test (a handful of idle threads per test run).
  private func runJobs() {
    while true {
      available.wait()
      let job = jobs.withLock { $0.removeFirst() }
      job.runSynchronously(on: asUnownedSerialExecutor())
    }
  }
}

/// Holds the drain loop inside a reduce until the test opens it, so that the actions enqueued
/// meanwhile are reduced in one drain pass, and their runs start together (in one runner).
///
/// The held thread sleeps on a semaphore: spinning, the gates of the suite's tests once took
/// most of both cores for a minute under ThreadSanitizer, from the very tasks that open them.
private final class Gate: Sendable {
  private let entered = Atomic<Bool>(false)
  private let opened = Atomic<Bool>(false)
  private let wakeUp = DispatchSemaphore(value: 0)

  /// Called by the reducer: blocks the drain loop until `open()` (at once after it).
  func pass() {
    entered.store(true, ordering: .releasing)
    // `open()` signals once after setting `opened`: one drain loop waits at a time.
    while !opened.load(ordering: .acquiring) { wakeUp.wait() }
  }

  /// Waits until the drain loop is held in `pass()`.
  func waitUntilEntered() async {
    while !entered.load(ordering: .acquiring) { try? await Task.sleep(for: .milliseconds(1)) }
  }

  func open() {
    opened.store(true, ordering: .releasing)
    wakeUp.signal()
  }
}

/// A reducer whose `.gate` holds the drain loop and whose `.start` runs the test's effect.
private struct RunnerHarness: Reducer {
  struct State: Equatable, Sendable { var responses: [String] = [] }
  enum Action: Equatable, Sendable {
    case gate
    case start(String)
    case restart(String)
    case response(String)
    case cancelWork
  }
  let gate: Gate
  let effect: @Sendable (String) -> Effect<Action>

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .gate:
      gate.pass()
      return .none
    case let .start(name):
      return effect(name)
    case let .restart(name):
      return effect(name).cancellable(id: RunnerCancelID.work, cancelInFlight: true)
    case let .response(value):
      state.responses.append(value)
      return .none
    case .cancelWork:
      return .cancel(id: RunnerCancelID.work)
    }
  }
}

/// Whether `condition` holds within about ten seconds, polling.
private func eventually(_ condition: () async -> Bool) async -> Bool {
  for _ in 0..<10_000 {
    if await condition() { return true }
    try? await Task.sleep(for: .milliseconds(1))
  }
  return await condition()
}

/// Instrumentation that logs the effects it is told of: "started NAME", then "NAME OUTCOME"
/// (and "instant" when an effect ended at the time it started).
private final class EffectLog: StoreInstrumentation {
  typealias Action = RunnerHarness.Action
  let events = EventLog()
  /// The task each effect was reported started in, by the action's name.
  let reportedIn = Mutex<[String: Int]>([:])

  func actionReduced(_ action: Action, enqueuedAt: UInt64, startedAt: UInt64, endedAt: UInt64) {}

  func effectStarted(by action: Action, at time: UInt64) {
    events.append("started \(Self.name(action))")
    let task = withUnsafeCurrentTask { $0?.hashValue } ?? 0
    reportedIn.withLock { $0[Self.name(action)] = task }
  }

  func effectEnded(by action: Action, startedAt: UInt64, endedAt: UInt64, outcome: EffectOutcome) {
    let instant = endedAt == startedAt ? " instant" : ""
    events.append("\(Self.name(action)) \(outcome.rawValue)\(instant)")
  }

  private static func name(_ action: Action) -> String {
    switch action {
    case let .start(name), let .restart(name), let .response(name): name
    case .gate: "gate"
    case .cancelWork: "cancelWork"
    }
  }
}

/// An object whose lifetime a test watches.
private final class Payload: Sendable {}

/// The drain loop starts the plain runs of one pass together, in one task until one of them
/// suspends (`EffectRunner`). These tests hold the drain loop with a gate so that the runs
/// under test are reduced in one pass; the store runs on a thread of its own
/// (``ThreadSerialExecutor``), which the gate blocks.
@Suite(.timeLimit(.minutes(10))) struct EffectRunnerTests {
  /// A store of `RunnerHarness` on a thread of its own.
  private func makeStore(
    gate: Gate, instrumentation: EffectLog? = nil,
    effect: @escaping @Sendable (String) -> Effect<RunnerHarness.Action>
  ) -> Store<RunnerHarness.State, RunnerHarness.Action> {
    Store(
      initialState: RunnerHarness.State(),
      options: StoreOptions(instrumentation: instrumentation, executor: ThreadSerialExecutor())
    ) {
      RunnerHarness(gate: gate, effect: effect)
    }
  }

  /// A store whose effects log their name when their operation begins, then suspend until
  /// cancelled.
  private func makeLoggingStore() -> (
    Store<RunnerHarness.State, RunnerHarness.Action>, Gate, EventLog
  ) {
    let gate = Gate()
    let started = EventLog()
    let store = makeStore(gate: gate) { name in
      .run { _ in
        started.append(name)
        await suspendUntilCancelled()
      }
    }
    return (store, gate, started)
  }

  /// Enqueues `.gate`, then `actions` while the drain loop is held, then opens the gate.
  private func enqueueInOnePass(
    _ actions: [RunnerHarness.Action], into store: Store<RunnerHarness.State, RunnerHarness.Action>,
    gate: Gate
  ) async {
    store.enqueue(.gate)
    await gate.waitUntilEntered()
    for action in actions { store.enqueue(action) }
    gate.open()
  }

  @Test func aRunThatSuspendsDoesNotHoldBackTheRunsAfterIt() async {
    let gate = Gate()
    let live = LiveCounter()
    let store = makeStore(gate: gate) { name in
      if name == "slow" {
        return .run { _ in
          live.enter()
          defer { live.leave() }
          await suspendUntilCancelled()
        }
      }
      return .run { send in await send(.response(name)) }
    }
    await enqueueInOnePass(
      [.start("a"), .start("slow"), .start("b"), .start("slow"), .start("c")], into: store,
      gate: gate)
    let answered = await eventually { await store.state.responses == ["a", "b", "c"] }
    #expect(answered)
    #expect(await eventually { live.count == 2 })
    // Each suspended run keeps its task; the ones that ended left nothing registered.
    #expect(store.runningEffectCount == 2)
    await store.shutdown()
    await store.finish()
    #expect(store.runningEffectCount == 0)
    #expect(live.count == 0)
  }

  /// A run collected for a later start still starts before an effect that a later action
  /// returned, and before a later cancellation: effects start and are cancelled in the order
  /// their reduces returned them.
  @Test func collectedRunsStartBeforeALaterEffectOrCancellation() async {
    let gate = Gate()
    let log = EventLog()
    let store = makeStore(gate: gate) { name in
      if name == "registered" {
        return .run { _ in
          log.append("registered")
          try await withTaskCancellation(id: RunnerCancelID.work) {
            await suspendUntilCancelled()
            log.append("cancelled")
          }
        }
      }
      // "prioritized" has a priority of its own: it starts in its own task, at once.
      return .run(priority: name == "prioritized" ? .high : nil) { _ in log.append(name) }
    }
    await enqueueInOnePass(
      [
        .start("1"), .start("2"), .start("prioritized"), .start("3"), .start("registered"),
        .cancelWork,
      ],
      into: store, gate: gate)
    await store.finish()
    #expect(log.all == ["1", "2", "prioritized", "3", "registered", "cancelled"])
    #expect(store.runningEffectCount == 0)
  }

  /// Runs that suspend and resume on another thread race the store's sealing of their runner;
  /// every run must run once, not twice and not never. More runs than one batch holds.
  @Test func everyRunRunsOnceWhenRunsSuspendAndResumeElsewhere() async {
    let gate = Gate()
    let runs = Atomic<Int>(0)
    let store = makeStore(gate: gate) { name in
      .run { send in
        runs.add(1, ordering: .relaxed)
        if Int(name)! % 3 != 0 { await Task.yield() }
        await send(.response(name))
      }
    }
    let count = 20_000
    await enqueueInOnePass((0..<count).map { .start(String($0)) }, into: store, gate: gate)
    await store.finish()
    #expect(runs.load(ordering: .relaxed) == count)
    let responses = await store.state.responses
    #expect(responses.count == count)
    #expect(Set(responses).count == count)
    #expect(store.runningEffectCount == 0)
  }

  /// A run that suspends keeps its own effect alive, not the others of its batch.
  @Test func aSuspendedRunDoesNotKeepItsBatchAlive() async {
    let gate = Gate()
    let payload = Mutex<Payload?>(Payload())
    weak let watched = payload.withLock { $0 }
    let store = makeStore(gate: gate) { name in
      if name == "slow" {
        return .run { _ in await suspendUntilCancelled() }
      }
      let captured = payload.withLock { $0.take() }
      return .run { send in
        _ = captured
        await send(.response(name))
      }
    }
    await enqueueInOnePass([.start("slow"), .start("quick")], into: store, gate: gate)
    #expect(await eventually { await store.state.responses == ["quick"] })
    #expect(await eventually { watched == nil })
    #expect(store.runningEffectCount == 1)
    await store.shutdown()
    await store.finish()
    #expect(store.runningEffectCount == 0)
  }

  /// Restarts (`cancelInFlight`) reduced in one pass: each replaces the one before it before
  /// the pass ends, so only the last one's operation ever runs (the others never get a task).
  @Test func restartsReplacedWithinAPassNeverStart() async {
    let (store, gate, started) = makeLoggingStore()
    await enqueueInOnePass((1...10).map { .restart(String($0)) }, into: store, gate: gate)
    #expect(await eventually { started.all == ["10"] })
    #expect(store.runningEffectCount == 1)
    store.enqueue(.cancelWork)
    await store.finish()
    #expect(started.all == ["10"])
    #expect(store.runningEffectCount == 0)
  }

  /// A reserved effect cancelled by its ID in the same pass never starts, and leaves the
  /// registry idle: `finish()` returns.
  @Test func aReservedEffectCancelledInItsPassNeverStarts() async {
    let (store, gate, started) = makeLoggingStore()
    await enqueueInOnePass([.restart("a"), .cancelWork], into: store, gate: gate)
    await store.finish()
    #expect(started.all.isEmpty)
    #expect(store.runningEffectCount == 0)
  }

  /// A store with instrumentation runs its effects the same way (shared runner tasks, restarts
  /// collected) and reports every one by its action: a run from when its operation begins to
  /// its end, a restart replaced before its task existed as started and cancelled at once.
  @Test func instrumentationSeesEveryCollectedEffect() async {
    let gate = Gate()
    let log = EffectLog()
    // The task each run's operation began in.
    let tasks = Mutex<[String: Int]>([:])
    let store = makeStore(gate: gate, instrumentation: log) { name in
      .run { send in
        let task = withUnsafeCurrentTask { $0?.hashValue } ?? 0
        tasks.withLock { $0[name] = task }
        if name.hasPrefix("slow") { await suspendUntilCancelled() }
        await send(.response(name))
      }
    }
    await enqueueInOnePass(
      [.start("a"), .start("slow"), .start("b"), .restart("slow 1"), .restart("slow 2")],
      into: store, gate: gate)
    #expect(await eventually { await store.state.responses == ["a", "b"] })
    #expect(await eventually { store.runningEffectCount == 2 })
    store.enqueue(.cancelWork)
    await store.shutdown()
    await store.finish()
    let events = log.events.all
    for event in [
      "started a", "a finished", "started b", "b finished", "started slow", "slow cancelled",
      "started slow 1", "slow 1 cancelled instant", "started slow 2", "slow 2 cancelled",
    ] {
      #expect(events.filter { $0 == event }.count == 1, "\(event) in \(events)")
    }
    #expect(events.count == 10)
    #expect(store.runningEffectCount == 0)
    // Each run was reported started in the task its operation began in: a runner's, not the
    // drain loop's (which reports the start of an effect that gets a task of its own).
    let taskOf = tasks.withLock { $0 }
    let reportedIn = log.reportedIn.withLock { $0 }
    for name in ["a", "slow", "b"] {
      #expect(taskOf[name] != nil && taskOf[name] == reportedIn[name], "\(name)")
    }
  }
}

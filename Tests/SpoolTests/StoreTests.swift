import CasePaths
import ConcurrencyExtras
import Dependencies
import Foundation
import Spool
import Testing

@CasePathable
enum LogAction: Equatable, Sendable {
  case tap(String)
  case sendChild(String, then: String)
  case interject(String, child: String)
}

struct LogFeature: Reducer {
  struct State: Equatable, Sendable { var seen: [String] = [] }
  typealias Action = LogAction
  let interject: @Sendable (String) -> Void

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case let .tap(name):
      state.seen.append(name)
      return .none
    case let .sendChild(name, child):
      state.seen.append(name)
      return .send(.tap(child))
    case let .interject(name, child):
      state.seen.append(name)
      // Another producer enqueues while this action is being reduced.
      interject(name + "-other")
      return .merge(.send(.tap(child)), .send(.tap(child + "2")))
    }
  }
}

@Suite struct StoreTests {
  @Test func sendReducesBeforeReturning() async {
    let store = Store(initialState: LogFeature.State()) { LogFeature { _ in } }
    await store.send(.tap("a"))
    #expect(await store.state.seen == ["a"])
  }

  @Test func enqueuedActionsAreReducedInOrder() async {
    let store = Store(initialState: LogFeature.State()) { LogFeature { _ in } }
    for index in 0..<5_000 { store.enqueue(.tap("\(index)")) }
    await store.finish()
    #expect(await store.state.seen == (0..<5_000).map { "\($0)" })
  }

  @Test func sendComesAfterActionsAlreadyEnqueued() async {
    let store = Store(initialState: LogFeature.State()) { LogFeature { _ in } }
    store.enqueue(.tap("1"))
    store.enqueue(.tap("2"))
    await store.send(.tap("3"))
    #expect(await store.state.seen == ["1", "2", "3"])
  }

  @Test func synchronousSendsComeBeforeOtherProducers() async {
    let target = LockIsolated<Store<LogFeature.State, LogAction>?>(nil)
    let store = Store(initialState: LogFeature.State()) {
      LogFeature { name in target.value?.enqueue(.tap(name)) }
    }
    target.setValue(store)
    await store.send(.interject("a", child: "b"))
    await store.finish()
    #expect(await store.state.seen == ["a", "b", "b2", "a-other"])
    target.setValue(nil)
  }

  // MARK: Cancelling a send's task

  /// `StoreTask.cancel()` reaches the effects of the actions the effect sent synchronously
  /// (`.send`), which the send itself reduced.
  @Test func cancellingASendsTaskCancelsTheEffectsOfItsSynchronousSends() async {
    let store = Store(initialState: 0) { cascadeChain() }
    let task = await store.send(.sendSynchronously)
    #expect(await store.state == 1)
    task.cancel()
    await task.finish()
    #expect(task.isCancelled)
    #expect(store.runningEffectCount == 0)
  }

  /// Where Spool differs from TCA (`StoreTests.testCascadingTaskCancellation`, listed in the
  /// migration guide): the effects of actions that a `.run` sent later are not the send's, and
  /// its `cancel()` leaves them running; a cancellation ID ends the chain.
  @Test func cancellingASendsTaskLeavesTheEffectsOfActionsItsRunSentLater() async {
    let store = Store(initialState: 0) { cascadeChain() }
    let task = await store.send(.task)
    for await count in store.states where count == 3 { break }
    task.cancel()
    await task.finish()
    #expect(store.runningEffectCount > 0)
    await store.send(.stop)
    await store.finish()
    #expect(store.runningEffectCount == 0)
  }

  // MARK: Reducing on the caller's thread

  /// `enqueue` on an idle store reduces on the caller's thread, holding the store: a reducer
  /// that enqueues into its own store then finds it held, and its action is queued behind
  /// the current one (and its synchronous sends), not reduced inside it or lost.
  @Test func aReducerThatEnqueuesIntoItsOwnStoreIsQueuedBehindTheCurrentAction() async {
    let target = LockIsolated<Store<LogFeature.State, LogAction>?>(nil)
    let store = Store(initialState: LogFeature.State()) {
      LogFeature { name in target.value?.enqueue(.tap(name)) }
    }
    target.setValue(store)
    store.enqueue(.interject("a", child: "b"))
    store.enqueue(.tap("c"))
    await store.finish()
    // "c" may come before "a-other": when the store is busy, both enqueues return at once,
    // and "c" is queued before the reduce of "a" queues "a-other".
    let seen = await store.state.seen
    #expect(Array(seen.prefix(3)) == ["a", "b", "b2"])
    #expect(seen.dropFirst(3).sorted() == ["a-other", "c"])
    target.setValue(nil)
  }

  /// An effect whose synchronous part (run on the thread of the producer that reduced its
  /// action) awaits `send` and `state` of its own store: the store is held by that very
  /// thread, so the effect must wait for the pass to end rather than for itself.
  @Test func anEffectThatAwaitsItsOwnStoreDuringThePassDoesNotDeadlock() async {
    let target = LockIsolated<Store<ReentrantFeature.State, ReentrantFeature.Action>?>(nil)
    let store = Store(initialState: ReentrantFeature.State()) {
      ReentrantFeature(store: { target.value })
    }
    target.setValue(store)
    store.enqueue(.start)
    await store.finish()
    #expect(await store.state.seen == ["start", "sent", "read 2"])
    await store.send(.start)
    await store.finish()
    #expect(await store.state.seen == ["start", "sent", "read 2", "start", "sent", "read 5"])
    target.setValue(nil)
  }

  /// `await store.send(.start).finish()` returns after the actions the effect sent have been
  /// reduced, also when the effect suspends before it sends (so that the response is queued,
  /// not reduced inside the send), every time.
  @Test func storeTaskFinishReturnsAfterWhatItsEffectsSentWasReduced() async {
    let store = Store(initialState: ResponseFeature.State()) { ResponseFeature() }
    for round in 1...200 {
      await store.send(.start(round)).finish()
      #expect(await store.state.value == round, "round \(round)")
    }
  }

  /// A shutdown while producers reduce on their own threads and queue: nothing crashes, what
  /// was reduced is each producer's prefix in order, enqueues after it are only reported, and
  /// `finish()` returns.
  @Test func shutdownWhileProducersReduceOnTheirThreads() async {
    let store = Store(initialState: CountingFeature.State()) { CountingFeature() }
    let stop = LockIsolated(false)
    await withKnownIssue(isIntermittent: true) {
      await withTaskGroup(of: Void.self) { group in
        for producer in 0..<4 {
          group.addTask {
            var value = 0
            while !stop.value {
              store.enqueue(.add(producer: producer, value: value))
              value += 1
              if value % 64 == 0 { await Task.yield() }
            }
          }
        }
        while await store.state.count < 20_000 { await Task.yield() }
        await store.shutdown()
        stop.setValue(true)
      }
    } matching: { issue in
      issue.description.contains("after it was shut down")
    }
    await store.finish()
    let state = await store.state
    #expect(state.count >= 20_000)
    #expect(state.outOfOrder == 0)
    #expect(store.runningEffectCount == 0)
  }

  @Test func sendAfterShutdownIsReportedAndDropped() async {
    let store = Store(initialState: LogFeature.State()) { LogFeature { _ in } }
    await store.send(.tap("before"))
    await store.shutdown()
    await withKnownIssue {
      await store.send(.tap("after"))
    } matching: { issue in
      issue.description.contains("An action was sent to a store of")
        && issue.description.contains("after it was shut down")
        && issue.description.contains("after")
    }
    #expect(await store.state.seen == ["before"])
    #expect(await store.isShutdown)
  }

  @Test func enqueueAfterShutdownIsReportedAndDropped() async {
    let store = Store(initialState: LogFeature.State()) { LogFeature { _ in } }
    await store.shutdown()
    withKnownIssue {
      store.enqueue(.tap("late"))
    } matching: { issue in
      issue.description.contains("enqueued") && issue.description.contains("late")
    }
    #expect(await store.state.seen == [])
  }

  @Test func eightProducersLoseNothing() async {
    let store = Store(initialState: CountingFeature.State()) { CountingFeature() }
    let producers = 8
    let perProducer = 100_000
    await withTaskGroup(of: Void.self) { group in
      for producer in 0..<producers {
        group.addTask {
          for index in 0..<perProducer {
            store.enqueue(.add(producer: producer, value: index))
          }
        }
      }
    }
    await store.finish()
    let state = await store.state
    #expect(state.count == producers * perProducer)
    #expect(state.sum == producers * (perProducer * (perProducer - 1) / 2))
    // Each producer's actions arrive in the order it enqueued them.
    #expect(state.outOfOrder == 0)
  }

  @Test func mixedSendAndEnqueueKeepEachProducersOrder() async {
    let store = Store(initialState: CountingFeature.State()) { CountingFeature() }
    await withTaskGroup(of: Void.self) { group in
      for producer in 0..<4 {
        group.addTask {
          for index in 0..<5_000 {
            if index.isMultiple(of: 7) {
              await store.send(.add(producer: producer, value: index))
            } else {
              store.enqueue(.add(producer: producer, value: index))
            }
          }
        }
      }
    }
    await store.finish()
    let state = await store.state
    #expect(state.count == 20_000)
    #expect(state.outOfOrder == 0)
  }

  @Test func smallQueueOverflowsWithoutLosingOrder() async {
    let store = Store(
      initialState: CountingFeature.State(),
      options: StoreOptions(queueCapacity: 4)
    ) {
      CountingFeature()
    }
    await withTaskGroup(of: Void.self) { group in
      for producer in 0..<3 {
        group.addTask {
          for index in 0..<20_000 { store.enqueue(.add(producer: producer, value: index)) }
        }
      }
    }
    await store.finish()
    let state = await store.state
    #expect(state.count == 60_000)
    #expect(state.outOfOrder == 0)
  }

  @Test func releasedStoreCancelsItsEffects() async {
    let live = LiveCounter()
    let ended = AsyncStream<Void>.makeStream()
    do {
      let store = Store(initialState: LogFeature.State()) {
        Reduce<LogFeature.State, LogAction> { _, _ in
          .run { _ in
            live.enter()
            await suspendUntilCancelled()
            live.leave()
            ended.continuation.yield()
          }
        }
      }
      await store.send(.tap("start"))
    }
    var iterator = ended.stream.makeAsyncIterator()
    await iterator.next()
    #expect(live.count == 0)
  }

  /// An effect that awaits its own store's `finish()` would wait for itself: reported, and
  /// `finish()` returns, so the effect ends and so does every other `finish()`.
  @Test(.timeLimit(.minutes(10)))
  func finishFromAnEffectOfTheSameStoreIsReportedAndReturns() async {
    let target = LockIsolated<Store<FinishingFeature.State, FinishingFeature.Action>?>(nil)
    let store = Store(initialState: FinishingFeature.State()) {
      FinishingFeature(store: { target.value })
    }
    target.setValue(store)
    await withKnownIssue {
      await store.send(.finishOwnStore)
      await store.finish()
    } matching: { issue in
      issue.description.contains("would wait for itself")
    }
    #expect(await store.state.log == ["finish returned"])
    #expect(store.runningEffectCount == 0)
    target.setValue(nil)
  }

  /// A `finish()` from another store's effect is no misuse: it waits, and returns.
  @Test(.timeLimit(.minutes(10)))
  func finishFromAnotherStoresEffectWaits() async {
    let inner = Store(initialState: FinishingFeature.State()) { FinishingFeature { nil } }
    let outer = Store(initialState: FinishingFeature.State()) { FinishingFeature { inner } }
    await inner.send(.respondLater)
    await outer.send(.finishOwnStore)
    await outer.finish()
    #expect(await outer.state.log == ["finish returned"])
    #expect(await inner.state.log == ["responded"])
  }

  /// `shutdown()` cancels the effects, so that a `finish()` waiting for one that would never
  /// end returns.
  @Test(.timeLimit(.minutes(10)))
  func shutdownMakesAWaitingFinishReturn() async {
    let store = Store(initialState: FinishingFeature.State()) { FinishingFeature { nil } }
    await store.send(.waitForever)
    let waiter = Task { await store.finish() }
    await store.shutdown()
    await waiter.value
    #expect(store.runningEffectCount == 0)
  }

  /// A cancelled caller of `finish()` stops waiting (the effect runs on), and tells from
  /// `Task.isCancelled`; a later `finish()` still waits for the effect.
  @Test(.timeLimit(.minutes(10)))
  func aCancelledFinishStopsWaiting() async {
    let store = Store(initialState: FinishingFeature.State()) { FinishingFeature { nil } }
    await store.send(.waitForever)
    for round in 0..<50 {
      let waiter = Task { () -> Bool in
        await store.finish()
        return Task.isCancelled
      }
      // Cancelled before it waits, or while it waits: both return.
      if round.isMultiple(of: 2) { await Task.yield() }
      waiter.cancel()
      #expect(await waiter.value)
      #expect(store.runningEffectCount == 1)
    }
    let alreadyCancelled = Task { () -> Int in
      withUnsafeCurrentTask { $0?.cancel() }
      await store.finish()
      return store.runningEffectCount
    }
    #expect(await alreadyCancelled.value == 1)
    await store.shutdown()
    await store.finish()
    #expect(store.runningEffectCount == 0)
  }
}

/// A feature whose effects await a store's `finish()` (the one `store` returns), wait until
/// cancelled, or answer after a suspension.
struct FinishingFeature: Reducer {
  struct State: Equatable, Sendable { var log: [String] = [] }
  enum Action: Equatable, Sendable {
    case finishOwnStore
    case waitForever
    case respondLater
    case log(String)
  }
  let store: @Sendable () -> Store<State, Action>?

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .finishOwnStore:
      return .run { [store] send in
        await store()?.finish()
        await send(.log("finish returned"))
      }
    case .waitForever:
      return .run { _ in await suspendUntilCancelled() }
    case .respondLater:
      return .run { send in
        await Task.yield()
        await send(.log("responded"))
      }
    case let .log(line):
      state.log.append(line)
      return .none
    }
  }
}

/// Counts actions from several producers and checks each producer's order.
struct CountingFeature: Reducer {
  struct State: Equatable, Sendable {
    var count = 0
    var sum = 0
    var lastByProducer: [Int: Int] = [:]
    var outOfOrder = 0
  }
  enum Action: Equatable, Sendable { case add(producer: Int, value: Int) }

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case let .add(producer, value):
      state.count += 1
      state.sum += value
      if let last = state.lastByProducer[producer], last >= value { state.outOfOrder += 1 }
      state.lastByProducer[producer] = value
      return .none
    }
  }
}

/// A feature whose effect awaits its own store: `send`, then `state`, then sends back what
/// it read.
struct ReentrantFeature: Reducer {
  struct State: Equatable, Sendable { var seen: [String] = [] }
  enum Action: Equatable, Sendable {
    case start
    case log(String)
  }
  let store: @Sendable () -> Store<State, Action>?

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .start:
      state.seen.append("start")
      return .run { [store] send in
        guard let store = store() else { return }
        await store.send(.log("sent"))
        let count = await store.state.seen.count
        await send(.log("read \(count)"))
      }
    case let .log(line):
      state.seen.append(line)
      return .none
    }
  }
}

/// A feature whose effect suspends, then sends a response carrying its value.
struct ResponseFeature: Reducer {
  struct State: Equatable, Sendable { var value = 0 }
  enum Action: Equatable, Sendable {
    case start(Int)
    case response(Int)
  }

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case let .start(value):
      return .run { send in
        await Task.yield()
        await send(.response(value))
      }
    case let .response(value):
      state.value = value
      return .none
    }
  }
}

enum CascadeChainAction: Equatable, Sendable {
  case task, response, response1, response2, sendSynchronously, stop
}

/// TCA's cascading-cancellation chain: each action's `.run` sends the next one, and each of
/// `response`…`response2` counts and starts an effect that never ends, under one ID.
func cascadeChain() -> Reduce<Int, CascadeChainAction> {
  Reduce { state, action in
    let never = Effect<CascadeChainAction>.run { _ in try await Task.never() }
      .cancellable(id: "chain")
    switch action {
    case .task:
      return .run { send in await send(.response) }
    case .response:
      state += 1
      return .merge(never, .run { send in await send(.response1) })
    case .response1:
      state += 1
      return .merge(never, .run { send in await send(.response2) })
    case .response2:
      state += 1
      return never
    case .sendSynchronously:
      return .send(.response2)
    case .stop:
      return .cancel(id: "chain")
    }
  }
}

/// How a store is made: its initial state with its dependencies, and its state's type taken from
/// the reducer, as with TCA's `Store(initialState:reducer:withDependencies:)`.
@Suite struct StoreInitialStateTests {
  struct Stamp: Reducer {
    struct State: Equatable, Sendable {
      var madeAt: Date
      var sent = 0
      init() {
        @Dependency(\.date.now) var now
        self.madeAt = now
      }
    }
    enum Action: Sendable { case tap }
    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      state.sent += 1
      return .none
    }
  }

  @Test func theInitialStateIsMadeWithTheStoresDependencies() async {
    let store = Store(initialState: Stamp.State()) {
      Stamp()
    } withDependencies: {
      $0.date.now = Date(timeIntervalSince1970: 1_234_567_890)
    }
    #expect(await store.state.madeAt == Date(timeIntervalSince1970: 1_234_567_890))
  }

  @Test func theStatesTypeComesFromTheReducer() async {
    let store = Store(initialState: .init()) {
      Stamp()
    } withDependencies: {
      $0.date.now = Date(timeIntervalSince1970: 0)
    }
    await store.send(.tap)
    #expect(await store.state.sent == 1)
  }
}

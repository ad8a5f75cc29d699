import Clocks
import ConcurrencyExtras
import Dependencies
import Foundation
import Spool
import Testing

enum EffectAction: Equatable, Sendable {
  case start(String)
  case response(String)
  case cancel
}

private enum CancelID { case work }

/// A task-local that effect tests bind around `send`.
enum EffectProbe {
  @TaskLocal static var tag = "none"
}

/// A reducer whose `start` action runs the effect the test gives it.
struct EffectHarness: Reducer {
  struct State: Equatable, Sendable { var responses: [String] = [] }
  typealias Action = EffectAction
  let effect: @Sendable (String) -> Effect<Action>

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case let .start(name): return effect(name)
    case let .response(value):
      state.responses.append(value)
      return .none
    case .cancel: return .cancel(id: CancelID.work)
    }
  }
}

@Suite struct EffectTests {
  @Test func runSendsBackThroughTheQueue() async {
    let store = Store(initialState: EffectHarness.State()) {
      EffectHarness { name in .run { send in await send(.response(name + "!")) } }
    }
    await store.send(.start("a")).finish()
    await store.finish()
    #expect(await store.state.responses == ["a!"])
  }

  @Test func cancelInFlightReplacesTheRunningEffect() async {
    let log = EventLog()
    let live = LiveCounter()
    let store = Store(initialState: EffectHarness.State()) {
      EffectHarness { name in
        .run { send in
          live.enter()
          defer { live.leave() }
          log.append("start \(name)")
          await suspendUntilCancelled()
          log.append("cancelled \(name)")
        }
        .cancellable(id: CancelID.work, cancelInFlight: true)
      }
    }
    let first = await store.send(.start("1"))
    await store.send(.start("2"))
    await first.finish()
    #expect(log.all.contains("cancelled 1"))
    #expect(store.runningEffectCount == 1)
    await store.send(.cancel)
    await store.finish()
    #expect(store.runningEffectCount == 0)
    #expect(live.count == 0)
    #expect(log.all.filter { $0.hasPrefix("cancelled") }.count == 2)
  }

  @Test func cancellingAnIDCancelsAllMergedChildren() async {
    let live = LiveCounter()
    let store = Store(initialState: EffectHarness.State()) {
      EffectHarness { _ in
        .merge(
          (0..<5).map { _ in
            Effect<EffectAction>.run { _ in
              live.enter()
              defer { live.leave() }
              await suspendUntilCancelled()
            }
          }
        )
        .cancellable(id: CancelID.work)
      }
    }
    let task = await store.send(.start("x"))
    // All five children are child tasks of one registered task.
    #expect(store.runningEffectCount == 1)
    await store.send(.cancel)
    await task.finish()
    await store.finish()
    #expect(live.count == 0)
    #expect(store.runningEffectCount == 0)
  }

  @Test func shutdownLeavesNoRunningTask() async {
    let live = LiveCounter()
    let store = Store(initialState: EffectHarness.State()) {
      EffectHarness { _ in
        .run { _ in
          live.enter()
          defer { live.leave() }
          await suspendUntilCancelled()
        }
      }
    }
    for index in 0..<200 { await store.send(.start("\(index)")) }
    #expect(store.runningEffectCount == 200)
    await store.shutdown()
    await store.finish()
    #expect(store.runningEffectCount == 0)
    #expect(live.count == 0)
  }

  @Test func idsAreScopedPerStore() async {
    let live = LiveCounter()
    let make = {
      Store(initialState: EffectHarness.State()) {
        EffectHarness { _ in
          .run { _ in
            live.enter()
            defer { live.leave() }
            await suspendUntilCancelled()
          }
          .cancellable(id: CancelID.work)
        }
      }
    }
    let first = make()
    let second = make()
    await first.send(.start("a"))
    await second.send(.start("b"))
    await first.send(.cancel)
    await first.finish()
    #expect(first.runningEffectCount == 0)
    #expect(second.runningEffectCount == 1)
    await second.shutdown()
    await second.finish()
  }

  @Test func concatenateRunsInOrder() async {
    let store = Store(initialState: EffectHarness.State()) {
      EffectHarness { _ in
        .concatenate(
          .send(.response("sync-1")),
          .run { send in await Task.yield(); await send(.response("async-2")) },
          .send(.response("after-3")),
          .run { send in await send(.response("async-4")) }
        )
      }
    }
    await store.send(.start("x")).finish()
    await store.finish()
    #expect(await store.state.responses == ["sync-1", "async-2", "after-3", "async-4"])
  }

  @Test func mapTransformsSentActions() async {
    let store = Store(initialState: EffectHarness.State()) {
      EffectHarness { name in
        Effect<String>.merge(.send(name), .run { send in await send(name + "-run") })
          .map { EffectAction.response($0) }
      }
    }
    await store.send(.start("m")).finish()
    await store.finish()
    #expect(await store.state.responses.sorted() == ["m", "m-run"])
  }

  @Test func unhandledErrorIsReported() async {
    struct Failure: Error {}
    let store = Store(initialState: EffectHarness.State()) {
      EffectHarness { _ in .run { _ in throw Failure() } }
    }
    await withKnownIssue {
      await store.send(.start("x")).finish()
    } matching: { issue in
      // TCA's opening, and its dump of the error, which its users' matchers look for.
      message(of: issue).hasPrefix("An \"Effect.run\" returned from \"SpoolTests/")
        && message(of: issue).contains("\" threw an unhandled error. …\n\n    ")
        && message(of: issue).contains("Failure()")
    }
  }

  @Test func caughtErrorGoesToTheHandler() async {
    struct Failure: Error {}
    let store = Store(initialState: EffectHarness.State()) {
      EffectHarness { _ in
        .run { _ in throw Failure() } catch: { _, send in await send(.response("caught")) }
      }
    }
    await store.send(.start("x")).finish()
    await store.finish()
    #expect(await store.state.responses == ["caught"])
  }

  @Test func cancellationIsNotAnError() async {
    let store = Store(initialState: EffectHarness.State()) {
      EffectHarness { _ in
        .run { _ in try await Task.sleep(for: .seconds(3600)) }
          .cancellable(id: CancelID.work)
      }
    }
    let task = await store.send(.start("x"))
    await store.send(.cancel)
    await task.finish()
    await store.finish()
    #expect(store.runningEffectCount == 0)
  }

  /// From `send` (the effect starts in the sender's task) and from `enqueue` (it starts in the
  /// drain loop's, whose registry binding it reuses).
  @Test(arguments: [false, true])
  func withTaskCancellationRegistersPartOfAnEffect(fromTheQueue: Bool) async {
    let log = EventLog()
    let store = Store(initialState: EffectHarness.State()) {
      EffectHarness { _ in
        .run { send in
          log.append("before")
          do {
            try await withTaskCancellation(id: CancelID.work) {
              try await Task.sleep(for: .seconds(3600))
            }
          } catch {
            log.append("inner cancelled")
          }
          await send(.response("after"))
        }
      }
    }
    if fromTheQueue {
      store.enqueue(.start("x"))
    } else {
      await store.send(.start("x"))
    }
    while store.runningEffectCount < 2 { await Task.yield() }
    await store.send(.cancel)
    await store.finish()
    #expect(log.all == ["before", "inner cancelled"])
    #expect(await store.state.responses == ["after"])
  }

  /// Bounded: an effect left running would make `finish()` wait forever.
  @Test(.timeLimit(.minutes(10))) func taskCancelFromAnEffectCancelsTheEffectsUnderTheID() async {
    let live = LiveCounter()
    let store = Store(initialState: EffectHarness.State()) {
      EffectHarness { name in
        if name == "stop" { return .run { _ in Task.cancel(id: CancelID.work) } }
        return .run { _ in
          live.enter()
          defer { live.leave() }
          await suspendUntilCancelled()
        }
        .cancellable(id: CancelID.work)
      }
    }
    await store.send(.start("1"))
    await store.send(.start("2"))
    while live.count < 2 { await Task.yield() }
    await store.send(.start("stop")).finish()
    await store.finish()
    #expect(live.count == 0)
    #expect(store.runningEffectCount == 0)
  }

  @Test func taskCancelCancelsTheCallingEffectWhenItRunsUnderTheID() async {
    let log = EventLog()
    let store = Store(initialState: EffectHarness.State()) {
      EffectHarness { _ in
        .run { _ in
          Task.cancel(id: CancelID.work)
          log.append(Task.isCancelled ? "cancelled" : "running")
        }
        .cancellable(id: CancelID.work)
      }
    }
    await store.send(.start("x")).finish()
    #expect(log.all == ["cancelled"])
  }

  /// Bounded: an effect left running would make `finish()` wait forever.
  @Test(.timeLimit(.minutes(10))) func taskCancelReachesOnlyTheCallingEffectsStore() async {
    let live = LiveCounter()
    let make = {
      Store(initialState: EffectHarness.State()) {
        EffectHarness { name in
          if name == "stop" { return .run { _ in Task.cancel(id: CancelID.work) } }
          return .run { _ in
            live.enter()
            defer { live.leave() }
            await suspendUntilCancelled()
          }
          .cancellable(id: CancelID.work)
        }
      }
    }
    let first = make()
    let second = make()
    await first.send(.start("a"))
    await second.send(.start("b"))
    while live.count < 2 { await Task.yield() }
    await first.send(.start("stop")).finish()
    await first.finish()
    #expect(first.runningEffectCount == 0)
    #expect(second.runningEffectCount == 1)
    #expect(live.count == 1)
    await second.shutdown()
    await second.finish()
  }

  @Test func taskCancelOutsideAnEffectIsReported() {
    withKnownIssue {
      Task.cancel(id: CancelID.work)
    } matching: { String(describing: $0).contains("outside an effect of a store") }
  }

  /// An effect's task is its own (started immediately, not run in the caller's task), with the
  /// priority the effect asked for, or the starting task's when it asked for none; and it sees
  /// task-local values bound where it was started. From `send` and from `enqueue`.
  @Test(arguments: [false, true])
  func effectTasksHaveTheirPriorityAndTheStartersTaskLocals(fromTheQueue: Bool) async {
    let log = EventLog()
    let store = Store(initialState: EffectHarness.State()) {
      EffectHarness { name in
        .run(priority: name == "low" ? .low : nil) { send in
          log.append("\(name) priority \(Task.basePriority?.rawValue ?? 0)")
          log.append("\(name) local \(EffectProbe.tag)")
          await send(.response(name))
        }
      }
    }
    let sender = await EffectProbe.$tag.withValue("sender") {
      await Task(priority: .high) {
        if fromTheQueue {
          store.enqueue(.start("low"))
          store.enqueue(.start("inherited"))
        } else {
          await store.send(.start("low"))
          await store.send(.start("inherited"))
        }
        return Task.basePriority?.rawValue ?? 0
      }.value
    }
    await store.finish()
    #expect(await store.state.responses == ["low", "inherited"])
    #expect(log.all.contains("low priority \(TaskPriority.low.rawValue)"))
    if !fromTheQueue {
      // From `send` the effect starts in the sender's task, and inherits its priority and its
      // task-locals; from the queue it starts in the drain loop's.
      #expect(log.all.contains("inherited priority \(sender)"))
      #expect(log.all.contains("low local sender"))
    }
    #expect(store.runningEffectCount == 0)
  }

  @Test func storeTaskCancelCancelsTheActionsEffects() async {
    let live = LiveCounter()
    let store = Store(initialState: EffectHarness.State()) {
      EffectHarness { _ in
        .run { _ in
          live.enter()
          defer { live.leave() }
          await suspendUntilCancelled()
        }
      }
    }
    let task = await store.send(.start("x"))
    task.cancel()
    await task.finish()
    #expect(task.isCancelled)
    #expect(live.count == 0)
  }

  /// From `send` and from `enqueue`, by a producer whose own dependencies differ: the effect
  /// sees the store's. (Effects started by the drain loop copy the loop's bindings of the
  /// dependencies and of the effect registry, and push them again only when they differ.)
  @Test(arguments: [false, true])
  func effectsUseTheStoresDependencies(fromTheQueue: Bool) async {
    let clock = TestClock()
    let store = Store(initialState: EffectHarness.State()) {
      EffectHarness { name in
        .run { send in
          @Dependency(\.continuousClock) var clock
          try await clock.sleep(for: .seconds(1))
          await send(.response(name))
        }
      }
    } withDependencies: {
      $0.continuousClock = clock
    }
    await withDependencies {
      $0.continuousClock = ImmediateClock()
    } operation: {
      if fromTheQueue {
        store.enqueue(.start("tick"))
      } else {
        await store.send(.start("tick"))
      }
    }
    while store.runningEffectCount < 1 { await Task.yield() }
    #expect(await store.state.responses == [])
    await clock.advance(by: .seconds(1))
    await store.finish()
    #expect(await store.state.responses == ["tick"])
  }

  @Test func effectsFromTheQueueSeeTheDependenciesOfTheReducerThatReturnedThem() async {
    let store = Store(initialState: EffectHarness.State()) {
      EffectHarness { _ in
        .run { send in
          @Dependency(\.date.now) var now
          await send(.response("\(now.timeIntervalSince1970)"))
        }
      }
      .dependency(\.date, .constant(Date(timeIntervalSince1970: 42)))
    } withDependencies: {
      $0.date = .constant(Date(timeIntervalSince1970: 0))
    }
    store.enqueue(.start("x"))
    await store.finish()
    #expect(await store.state.responses == ["42.0"])
  }
}

import Logging
import ServiceLifecycle
import Spool
import SpoolServiceLifecycle
import Testing

@Suite(.timeLimit(.minutes(10)))
struct StoreServiceTests {
  @Test func effectsThatEndWithinTheGracePeriodFinishBeforeTheStoreShutsDown() async throws {
    let probe = EffectProbe()
    let store = Store(initialState: Worker.State()) { Worker(probe: probe) }
    await store.send(.start)
    let (logger, records) = RecordingLogHandler.logger()
    let group = ServiceGroup(
      services: [StoreService(store, gracePeriod: .seconds(3600), logger: logger)],
      logger: Logger(label: "quiet") { _ in SwiftLogNoOpLogHandler() })
    let running = Task { try await group.run() }

    _ = await records.first(startingWith: "Waiting for the graceful shutdown")
    await group.triggerGracefulShutdown()
    _ = await records.first(startingWith: "Graceful shutdown: waiting")
    // During the grace period the store still takes actions (its effects send theirs).
    #expect(await store.isShutdown == false)
    probe.release.yield()
    try await running.value

    #expect(await store.state.done)
    #expect(!probe.cancelled)
    #expect(await store.isShutdown)
    #expect(store.runningEffectCount == 0)
    let outcome = await records.first(startingWith: "Graceful shutdown: the")
    #expect(outcome?.message == "Graceful shutdown: the store's effects ended")
  }

  @Test func effectsStillRunningWhenTheGracePeriodRunsOutAreCancelled() async throws {
    let probe = EffectProbe()
    let store = Store(initialState: Worker.State()) { Worker(probe: probe) }
    await store.send(.start)
    let (logger, records) = RecordingLogHandler.logger()
    let group = ServiceGroup(
      services: [StoreService(store, gracePeriod: .milliseconds(10), logger: logger)],
      logger: Logger(label: "quiet") { _ in SwiftLogNoOpLogHandler() })
    let running = Task { try await group.run() }

    _ = await records.first(startingWith: "Waiting for the graceful shutdown")
    await group.triggerGracefulShutdown()
    try await running.value

    #expect(probe.cancelled)
    #expect(await store.state.done == false)
    #expect(await store.isShutdown)
    #expect(store.runningEffectCount == 0)
    let outcome = await records.first(startingWith: "Graceful shutdown: the")
    #expect(outcome?.level == .notice)
  }

  @Test func cancellingTheGroupShutsTheStoreDownAtOnce() async throws {
    let probe = EffectProbe()
    let store = Store(initialState: Worker.State()) { Worker(probe: probe) }
    await store.send(.start)
    let (logger, records) = RecordingLogHandler.logger()
    let group = ServiceGroup(
      services: [StoreService(store, gracePeriod: .seconds(3600), logger: logger)],
      logger: Logger(label: "quiet") { _ in SwiftLogNoOpLogHandler() })
    let running = Task { try await group.run() }

    _ = await records.first(startingWith: "Waiting for the graceful shutdown")
    running.cancel()
    _ = try? await running.value

    #expect(probe.cancelled)
    #expect(await store.isShutdown)
    #expect(store.runningEffectCount == 0)
  }
}

import Logging
import ServiceLifecycle
import Spool
import SpoolServiceLifecycle
import Testing

@Suite(.timeLimit(.minutes(10)))
struct StoreRegistryServiceTests {
  /// A group that runs the registry's service alone.
  func makeGroup(_ workers: WorkerRegistry, gracePeriod: Duration, logger: Logger) -> ServiceGroup {
    ServiceGroup(
      services: [StoreRegistryService(workers.registry, gracePeriod: gracePeriod, logger: logger)],
      logger: Logger(label: "quiet") { _ in SwiftLogNoOpLogHandler() })
  }

  @Test func theGracefulShutdownRefusesNewCallsAndLetsEffectsEnd() async throws {
    let workers = WorkerRegistry()
    try await workers.registry.send(.start, to: "a")
    try await workers.registry.send(.start, to: "b")
    let (logger, records) = RecordingLogHandler.logger()
    let group = makeGroup(workers, gracePeriod: .seconds(3600), logger: logger)
    let running = Task { try await group.run() }

    _ = await records.first(startingWith: "Waiting for the graceful shutdown")
    await group.triggerGracefulShutdown()
    _ = await records.first(startingWith: "Graceful shutdown: shutting")
    // From now on, no call creates or reaches a store.
    let error = await #expect(throws: StoreRegistryError.self) {
      try await workers.registry.send(.start, to: "c")
    }
    #expect(error?.code == .shutDown)
    #expect(workers.probe("c") == nil)

    let a = try #require(workers.probe("a"))
    let b = try #require(workers.probe("b"))
    a.release.yield()
    b.release.yield()
    try await running.value

    #expect(!a.cancelled && !b.cancelled)
    #expect(workers.evictedStates == ["a": Worker.State(done: true), "b": Worker.State(done: true)])
    #expect(workers.registry.isShutDown)
    #expect(workers.registry.count == 0)
  }

  @Test func effectsStillRunningAtTheDeadlineAreCancelled() async throws {
    let workers = WorkerRegistry()
    try await workers.registry.send(.start, to: "a")
    let (logger, records) = RecordingLogHandler.logger()
    let group = makeGroup(workers, gracePeriod: .milliseconds(10), logger: logger)
    let running = Task { try await group.run() }

    _ = await records.first(startingWith: "Waiting for the graceful shutdown")
    await group.triggerGracefulShutdown()
    try await running.value

    let a = try #require(workers.probe("a"))
    #expect(a.cancelled)
    #expect(workers.evictedStates == ["a": Worker.State(done: false)])
    #expect(workers.registry.isShutDown)
  }

  @Test func cancellingTheGroupShutsTheRegistryDownAtOnce() async throws {
    let workers = WorkerRegistry()
    try await workers.registry.send(.start, to: "a")
    let (logger, records) = RecordingLogHandler.logger()
    let group = makeGroup(workers, gracePeriod: .seconds(3600), logger: logger)
    let running = Task { try await group.run() }

    _ = await records.first(startingWith: "Waiting for the graceful shutdown")
    running.cancel()
    _ = try? await running.value

    let a = try #require(workers.probe("a"))
    #expect(a.cancelled)
    #expect(workers.registry.isShutDown)
    #expect(workers.evictedStates == ["a": Worker.State(done: false)])
  }
}

#if canImport(Glibc)
  import Glibc
#endif
import ConcurrencyExtras
import SpoolCore
@testable import SpoolIO
import Testing

extension SpoolIOTests {
  /// A store shut down while 10,000 of its effects wait on I/O: every effect ends (with
  /// `CancellationError`), nothing hangs, no operation stays in flight, no descriptor leaks.
  @Suite struct StoreShutdownStressTests {
    static let effects = 10_000

    /// Where the store and its effects run.
    enum Placement: CaseIterable, Sendable {
      /// A store on its own queue, effects on the global executor.
      case pool
      /// Effects on the engine's task executor.
      case effectsOnEngine
      /// The store on the engine's thread too (`Store(initialState:on:)`).
      case storeOnEngine
    }

    @Test(.timeLimit(.minutes(10)), arguments: allBackends, Placement.allCases)
    func shutdownWithTenThousandEffectsInFlight(
      backend: IOBackend.Preference, placement: Placement
    ) async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await expectNoDescriptorLeak {
        try await withEngine(backend, ringEntries: 256) { engine in
          let path = directory.file("data")
          let writer = try await IOFile.open(
            path, options: [.read, .write, .create, .truncate], on: engine)
          try await writer.write(Array(repeating: 7, count: 64 * 1024), at: 0)
          try await writer.close()
          let shared = try await IOFile.open(path, on: engine)

          let outcomes = Outcomes()
          let feature = IOEffectsFeature(
            clock: IOClock(engine: engine), engine: engine, path: path, shared: shared,
            outcomes: outcomes)
          let store =
            switch placement {
            case .pool:
              Store(initialState: IOEffectsFeature.State()) { feature }
            case .effectsOnEngine:
              Store(
                initialState: IOEffectsFeature.State(),
                options: StoreOptions(effectExecutor: engine.taskExecutor)
              ) { feature }
            case .storeOnEngine:
              Store(initialState: IOEffectsFeature.State(), on: engine) { feature }
            }
          for id in 0..<Self.effects { store.enqueue(.start(id)) }
          await store.send(.flush)
          // Every effect is running and inside (or between) its I/O operations.
          while outcomes.started < Self.effects || engine.operationsInFlight == 0 {
            try await Task.sleep(for: .milliseconds(1))
          }
          #expect(store.runningEffectCount == Self.effects)

          await store.shutdown()
          await store.finish()
          #expect(store.runningEffectCount == 0)
          #expect(outcomes.live == 0)
          #expect(outcomes.ended == Self.effects)
          #expect(outcomes.unexpected.isEmpty, "\(outcomes.unexpected.prefix(5))")
          // The backend has taken back every operation (it decrements its count after it
          // resumes the task, so wait for it rather than read it once).
          while engine.operationsInFlight != 0 { try await Task.sleep(for: .milliseconds(1)) }
          try await shared.close()
        }
      }
    }
  }
}

/// What the effects of ``IOEffectsFeature`` did, from any thread.
private final class Outcomes: Sendable {
  private let state = LockIsolated((started: 0, live: 0, ended: 0, unexpected: [String]()))

  func enter() { state.withValue { $0.started += 1; $0.live += 1 } }
  func leave(_ error: (any Error)?) {
    state.withValue {
      $0.live -= 1
      $0.ended += 1
      // Shut down mid-operation, every effect must end with `CancellationError`: not with an
      // I/O error, and not by returning (its loops only end by cancellation).
      if !(error is CancellationError) { $0.unexpected.append(String(describing: error)) }
    }
  }
  var started: Int { state.value.started }
  var live: Int { state.value.live }
  var ended: Int { state.value.ended }
  var unexpected: [String] { state.value.unexpected }
}

/// Starts effects that wait on I/O until they are cancelled, in four kinds: a long timeout,
/// reads of a shared file between short sleeps, open-read-close of a file of their own, and
/// very short sleeps one after another.
private struct IOEffectsFeature: Reducer {
  struct State: Equatable, Sendable {}
  enum Action: Equatable, Sendable {
    case start(Int)
    case flush
  }
  struct ID: Hashable, Sendable { let value: Int }

  let clock: IOClock
  let engine: IOEngine
  let path: String
  let shared: IOFile
  let outcomes: Outcomes

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case let .start(id):
      return .run { [clock, engine, path, shared, outcomes] _ in
        outcomes.enter()
        do {
          try await Self.work(
            kind: id % 4, clock: clock, engine: engine, path: path, shared: shared)
          outcomes.leave(nil)
        } catch {
          outcomes.leave(error)
        }
      }
      .cancellable(id: ID(value: id))
    case .flush:
      return .none
    }
  }

  static func work(
    kind: Int, clock: IOClock, engine: IOEngine, path: String, shared: IOFile
  ) async throws {
    switch kind {
    case 0:
      try await clock.sleep(for: .seconds(3600))
    case 1:
      var offset: UInt64 = 0
      while true {
        try Task.checkCancellation()
        _ = try await shared.read(upTo: 4096, at: offset)
        offset = (offset + 4096) % (64 * 1024)
        try await clock.sleep(for: .milliseconds(1))
      }
    case 2:
      while true {
        try Task.checkCancellation()
        // A cancelled open whose descriptor the kernel already made still hands it over (to
        // this `IOFile`, which closes it when released): no leak either way.
        let file = try await IOFile.open(path, on: engine)
        _ = try await file.read(upTo: 512, at: 0)
        try await file.close()
        try await clock.sleep(for: .milliseconds(1))
      }
    default:
      while true { try await clock.sleep(for: .microseconds(100)) }
    }
  }
}

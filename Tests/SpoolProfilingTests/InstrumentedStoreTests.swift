import Spool
import SpoolProfiling
import Testing

/// A real store, instrumented by the recorder: the hooks are called where the store promises.
@Suite struct InstrumentedStoreTests {
  enum CancelID { case long, stubborn, stubbornMerge }

  struct Feature: Reducer {
    struct State: Equatable, Sendable { var count = 0 }
    enum Action: Equatable, Sendable {
      case tap
      case startEffect
      case startLong
      case stopLong
      case fail
      case response
      case startStubborn
      case startStubbornMerge
      case stopStubborn
    }

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .tap:
        state.count += 1
        return .none
      case .startEffect:
        return .run { send in await send(.response) }
      case .startLong:
        return .run { _ in try await Task.sleep(for: .seconds(3600)) }
          .cancellable(id: CancelID.long)
      case .stopLong:
        return .cancel(id: CancelID.long)
      case .fail:
        struct Failure: Error {}
        return .run { _ in throw Failure() } catch: { _, _ in }
      case .response:
        state.count += 100
        return .none
      case .startStubborn:
        // Swallows its cancellation and returns normally: still a cancelled effect.
        return .run { _ in try? await Task.sleep(for: .seconds(3600)) }
          .cancellable(id: CancelID.stubborn)
      case .startStubbornMerge:
        return .merge(
          .run { _ in try? await Task.sleep(for: .seconds(3600)) },
          .run { _ in try? await Task.sleep(for: .seconds(3600)) }
        )
        .cancellable(id: CancelID.stubbornMerge)
      case .stopStubborn:
        return .merge(.cancel(id: CancelID.stubborn), .cancel(id: CancelID.stubbornMerge))
      }
    }
  }

  @Test func recordsEveryActionAndEveryEffectOutcome() async {
    let recorder = LatencyRecorder<Feature.Action>()
    let store = Store(initialState: Feature.State(), instrumentation: recorder) { Feature() }
    for _ in 0..<1_000 { store.enqueue(.tap) }
    await store.send(.tap)
    await store.send(.startEffect).finish()
    let long = await store.send(.startLong)
    await store.send(.stopLong)
    await long.finish()
    await store.send(.fail).finish()
    let stubborn = await store.send(.startStubborn)
    let stubbornMerge = await store.send(.startStubbornMerge)
    await store.send(.stopStubborn)
    await stubborn.finish()
    await stubbornMerge.finish()
    await store.finish()

    let recording = recorder.recording()
    let counts = Dictionary(
      uniqueKeysWithValues: recording.actionCases.map { ($0.label, $0.count) }
    )
    #expect(counts["tap"] == 1_001)
    #expect(counts["startEffect"] == 1)
    #expect(counts["response"] == 1)
    #expect(counts["stopLong"] == 1)
    #expect(recording.actions == 1_001 + 8)
    let effects = Dictionary(uniqueKeysWithValues: recording.effects.map { ($0.label, $0) })
    #expect(effects["startEffect"]?.finished == 1)
    #expect(effects["startLong"]?.cancelled == 1)
    #expect(effects["fail"]?.failed == 1)
    #expect(effects["startStubborn"]?.cancelled == 1)
    #expect(effects["startStubbornMerge"]?.cancelled == 1)
    #expect(recording.effects.allSatisfy { $0.inFlight == 0 })
    // Queue wait and reduce times are real, ordered timestamps.
    let tap = recording.actionCases.first { $0.label == "tap" }
    #expect(tap?.reduce.count == 1_001)
    #expect(tap?.queueWait.count == 1_001)
    #expect((tap?.queueWait.maxNanoseconds ?? 0) >= (tap?.queueWait.p50Nanoseconds ?? 1))
  }
}

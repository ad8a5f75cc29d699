import ConcurrencyExtras
import Spool
import Testing

/// `KeyedStoreInstrumentation`: one instrumentation for many stores, labeled by key.
@Suite(.timeLimit(.minutes(1)))
struct KeyedStoreInstrumentationTests {
  final class PerKey: KeyedStoreInstrumentation {
    let reduced = LockIsolated<[String: Int]>([:])
    let effects = LockIsolated<[String: [EffectOutcome]]>([:])

    func actionReduced(
      _ action: Ledger.Action, key: String, enqueuedAt: UInt64, startedAt: UInt64,
      endedAt: UInt64
    ) {
      reduced.withValue { $0[key, default: 0] += 1 }
    }

    func effectStarted(by action: Ledger.Action, key: String, at time: UInt64) {}

    func effectEnded(
      by action: Ledger.Action, key: String, startedAt: UInt64, endedAt: UInt64,
      outcome: EffectOutcome
    ) {
      effects.withValue { $0[key, default: []].append(outcome) }
    }
  }

  @Test func eachStoresCallsCarryItsKey() async throws {
    let shared = PerKey()
    let registry = StoreRegistry<String, Ledger.State, Ledger.Action> { id in
      Store(initialState: Ledger.State(), instrumentation: shared.instrumentation(for: id)) {
        Ledger()
      }
    }
    try await registry.send(.add(1), to: "a")
    try await registry.send(.addPair, to: "b")
    try await registry.send(.add(1), to: "a")
    try await registry.send(.startLongEffect, to: "b")
    await registry.shutdown(deadline: .now)
    #expect(shared.reduced.value == ["a": 2, "b": 3])
    #expect(shared.effects.value == ["b": [.cancelled]])
  }
}

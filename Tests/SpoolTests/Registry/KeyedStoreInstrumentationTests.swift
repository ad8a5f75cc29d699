import ConcurrencyExtras
import Spool
import Testing

/// `KeyedStoreInstrumentation`: one instrumentation for many stores, labeled by key.
@Suite(.timeLimit(.minutes(10)))
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

  /// Sampled 1 in 4: each store's `send`s are timed every fourth and counted otherwise, and
  /// both kinds of call carry the store's key.
  final class SampledPerKey: KeyedStoreInstrumentation {
    let timed = LockIsolated<[String: Int]>([:])
    let counted = LockIsolated<[String: Int]>([:])
    var timingSampling: TimingSampling { .oneIn(4) }

    func actionReduced(
      _ action: Ledger.Action, key: String, enqueuedAt: UInt64, startedAt: UInt64,
      endedAt: UInt64
    ) {
      timed.withValue { $0[key, default: 0] += 1 }
    }

    func actionCounted(_ action: Ledger.Action, key: String) {
      counted.withValue { $0[key, default: 0] += 1 }
    }

    func effectStarted(by action: Ledger.Action, key: String, at time: UInt64) {}

    func effectEnded(
      by action: Ledger.Action, key: String, startedAt: UInt64, endedAt: UInt64,
      outcome: EffectOutcome
    ) {}
  }

  @Test func aSampledInstrumentationCountsEachStoresUntimedActions() async throws {
    let shared = SampledPerKey()
    let registry = StoreRegistry<String, Ledger.State, Ledger.Action> { id in
      Store(initialState: Ledger.State(), instrumentation: shared.instrumentation(for: id)) {
        Ledger()
      }
    }
    for _ in 0..<8 { try await registry.send(.add(1), to: "a") }
    for _ in 0..<4 { try await registry.send(.add(1), to: "b") }
    await registry.shutdown(deadline: .now)
    #expect(shared.timed.value == ["a": 2, "b": 1])
    #expect(shared.counted.value == ["a": 6, "b": 3])
  }
}

import ConcurrencyExtras
import Spool
import Testing

import class Foundation.Thread

/// `Store.send(_:reading:)` and `Store.withState`.
@Suite(.timeLimit(.minutes(10)))
struct StoreSendReadingTests {
  @Test func readingSeesTheActionAndWhatItsEffectsSentSynchronously() async {
    let store = Store(initialState: Ledger.State()) { Ledger() }
    let read = await store.send(.addPair) { $0 }
    #expect(read.count == 2)
    #expect(read.log == ["pair", "second"])
  }

  /// Another producer enqueues all the time: every read ends with the pair its own action
  /// produced, never with the other producer's action between the pair and the read.
  @Test func noOtherProducersActionComesBetweenTheActionAndTheRead() async {
    let store = Store(initialState: Ledger.State()) { Ledger() }
    // Under ThreadSanitizer, 1,000 rounds: the other producer takes a core for as long as
    // the rounds last, from every suite running beside it.
    let rounds = StressTests.underThreadSanitizer ? 1_000 : 5_000
    let otherDone = LockIsolated(false)
    let other = Thread {
      var sent = 0
      while !otherDone.value || sent < rounds {
        store.enqueue(.other("o"))
        sent += 1
      }
    }
    other.start()
    for round in 0..<rounds {
      let (count, tail) = await store.send(.addPair) { ($0.count, Array($0.log.suffix(2))) }
      #expect(count == 2 * (round + 1))
      #expect(tail == ["pair", "second"])
    }
    otherDone.setValue(true)
    await store.finish()
    #expect(await store.state.count == 2 * rounds)
  }

  /// Reads while another producer keeps the store busy, so that many of them wait for the
  /// store on its executor and then resume in the caller's isolation (here, the test's
  /// actor), which must be the one they left.
  ///
  /// The other producer stops by itself after a bounded number of actions: a read waits for
  /// the store's lock, and a producer that never stops can keep it (and grow the queue) for
  /// as long as it runs.
  @Test @MainActor func readsWhileTheStoreIsBusyResumeInTheCallersIsolation() async {
    let store = Self.ledgerStore()
    let rounds = StressTests.underThreadSanitizer ? 500 : 3_000
    let otherActions = StressTests.underThreadSanitizer ? 20_000 : 100_000
    let other = Thread {
      for _ in 0..<otherActions { store.enqueue(.add(0)) }
    }
    other.start()
    var last = 0
    for round in 0..<rounds {
      let count: Int
      switch round % 3 {
      case 0: count = await store.withState { $0.count }
      case 1: count = await store.send(.add(1)) { $0.count }
      default: count = await store.state.count
      }
      MainActor.assertIsolated()
      #expect(count >= last)
      last = count
    }
    await store.finish()
    #expect(await store.state.count == rounds / 3 + (rounds % 3 > 1 ? 1 : 0))
  }

  /// A store made outside the main actor, for the tests isolated to it.
  nonisolated static func ledgerStore() -> Store<Ledger.State, Ledger.Action> {
    Store(initialState: Ledger.State()) { Ledger() }
  }

  @Test func withStateReadsTheCurrentState() async {
    let store = Store(initialState: Ledger.State()) { Ledger() }
    await store.send(.add(5))
    #expect(await store.withState { $0.count } == 5)
    store.enqueue(.add(2))
    await store.finish()
    #expect(await store.withState(\.count) == 7)
  }
}

#if canImport(Glibc)
  import Glibc
#endif
import Foundation
import SpoolCore
@testable import SpoolIO
@testable import SpoolJournal
import Synchronization
import Testing

extension SpoolJournalTests {
  /// `SharedJournal.recover(for:initialState:reducer:)` while `compact()` copies the store's
  /// records forward and removes the segments they were in: every store recovers exactly its
  /// own actions, none lost and none applied twice.
  @Suite struct SharedJournalCompactionRaceTests {
    typealias Journal = SharedJournal<Int, Ledger.State, Ledger.Action>
    typealias Shared = SharedJournalTests

    /// A count that escaping closures share.
    final class Counter: Sendable {
      let value: Atomic<Int>
      init(_ initial: Int = 0) { value = Atomic(initial) }
    }

    /// The stores recorded by ``recordStores(at:)``; the first half are evicted.
    static let stores = 0..<12
    static let rounds = 0..<30

    /// Records ``rounds`` rounds of every store of ``stores`` (interleaved, over many small
    /// segments), evicts the first half (a snapshot each), and closes the journal: no store of
    /// the reopened journal records, so each can be recovered.
    static func recordStores(at path: String) async throws {
      let journal = try await Journal.open(path: path, configuration: Shared.small)
      let made = try await Shared.recordInterleaved(journal, stores: stores, rounds: rounds)
      for id in stores.prefix(stores.count / 2) {
        #expect(try await journal.evict(id, finalState: await made[id]!.state))
      }
      try await journal.close()
    }

    static func expectExact(_ recovery: SharedJournalRecovery<Ledger.State>, id: Int) {
      #expect(recovery.state == Shared.expected(store: id, rounds: rounds), "store \(id)")
      #expect(recovery.startedFromSnapshot == (id < stores.count / 2), "store \(id)")
    }

    /// A recovery that took a store's extents, held there while a compaction copies them
    /// forward and removes every segment they named, reads the store again in its new place:
    /// it takes two attempts and recovers the exact state (an evicted store, then one that
    /// was not, whose records are the previous compaction's copies).
    @Test func aRecoveryWhoseSegmentsAreRemovedReadsTheCopies() async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      let path = directory.file("shared")
      try await Self.recordStores(at: path)
      let journal = try await Journal.open(path: path, configuration: Shared.small)
      let before = SharedJournalCompactionTests.segments(directory, "shared")
      #expect(before.count > 3)

      let (paused, pausedContinuation) = AsyncStream<Void>.makeStream()
      let (resumed, resumeContinuation) = AsyncStream<Void>.makeStream()
      let attempts = Counter()
      journal.sink.recoveryPause.withLock { pause in
        pause = { key, attempt in
          guard key != "100" else { return }
          attempts.value.add(1, ordering: .relaxed)
          guard attempt == 0 else { return }
          pausedContinuation.yield()
          for await _ in resumed { break }
        }
      }
      for (round, id) in [2, 9].enumerated() {
        // A churning store's new snapshot leaves the last compaction's copies with a record no
        // store needs: the next compaction copies every store forward again.
        let churn = try await journal.makeStore(for: 100, initialState: Ledger.State()) {
          Ledger()
        }
        await churn.send(.add(round))
        #expect(try await journal.evict(100, finalState: await churn.state))
        attempts.value.store(0, ordering: .relaxed)
        let recovery = Task {
          try await journal.recover(for: id, initialState: Ledger.State()) { Ledger() }
        }
        for await _ in paused { break }
        let removed = try await journal.compact()
        #expect(!removed.isEmpty, "store \(id): the compaction removed no segment")
        resumeContinuation.yield()
        Self.expectExact(try await recovery.value, id: id)
        #expect(
          attempts.value.load(ordering: .relaxed) == 2,
          "store \(id): read its old extents, then the copies")
      }
      journal.sink.recoveryPause.withLock { $0 = nil }
      for id in Self.stores {
        Self.expectExact(
          try await journal.recover(for: id, initialState: Ledger.State()) { Ledger() }, id: id)
      }
      try await journal.close()
    }

    /// 25 rounds, each: a churning store is made, records and is evicted (its new snapshot
    /// leaves the last compaction's copies with a record no store needs), then one compaction
    /// runs while every store is recovered, over and over (at most 100 passes) until the
    /// compaction ends. Every recovery is exact, each round moves every store's records, and
    /// the journal, reopened, still recovers every store exactly.
    @Test func recoveriesRacingCompactionsRecoverExactly() async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      let path = directory.file("shared")
      try await Self.recordStores(at: path)
      let journal = try await Journal.open(path: path, configuration: Shared.small)
      let churn = 100
      var removedTotal = 0
      for round in 0..<25 {
        let store = try await journal.makeStore(for: churn, initialState: Ledger.State()) {
          Ledger()
        }
        for action in Shared.actions(store: churn, round: round) { await store.send(action) }
        #expect(try await journal.evict(churn, finalState: await store.state))
        let epochBefore = journal.sink.core.withLock { $0.layoutEpoch }

        let compacting = Counter(1)
        let removed = try await withThrowingTaskGroup(of: [Int].self) { group in
          group.addTask {
            defer { compacting.value.store(0, ordering: .releasing) }
            return try await journal.compact()
          }
          for id in Self.stores {
            group.addTask {
              var pass = 0
              repeat {
                let recovery = try await journal.recover(for: id, initialState: Ledger.State()) {
                  Ledger()
                }
                Self.expectExact(recovery, id: id)
                pass += 1
              } while pass < 100 && compacting.value.load(ordering: .acquiring) != 0
              return []
            }
          }
          var removed: [Int] = []
          for try await segments in group { removed += segments }
          return removed
        }
        removedTotal += removed.count
        #expect(
          journal.sink.core.withLock { $0.layoutEpoch } == epochBefore + 1,
          "round \(round): the compaction copied the stores forward")
      }
      #expect(removedTotal >= 25, "every round's compaction removed the last one's copies")
      try await journal.close()

      let reopened = try await Journal.open(path: path, configuration: Shared.small)
      for id in Self.stores {
        Self.expectExact(
          try await reopened.recover(for: id, initialState: Ledger.State()) { Ledger() }, id: id)
      }
      let churned = try await reopened.recover(for: churn, initialState: Ledger.State()) {
        Ledger()
      }
      #expect(churned.state == Shared.expected(store: churn, rounds: 0..<25))
      try await reopened.close()
    }
  }
}

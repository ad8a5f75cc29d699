#if canImport(Glibc)
  import Glibc
#endif
import SpoolCore
import Synchronization
@testable import SpoolIO
@testable import SpoolJournal
import Testing

extension SpoolJournalTests {
  /// `SharedJournal.load(_:)` and `SharedJournalContents.replay(into:pace:)`: one store's
  /// records read from a shared journal of many, on real files.
  @Suite struct SharedJournalLoadTests {
    typealias Journal = SharedJournal<Int, Ledger.State, Ledger.Action>
    typealias Shared = SharedJournalTests

    /// 10 stores interleaved over many segments. A live store loads its 60 actions in order,
    /// with enqueue times, reading a small share of the journal, while it records and again
    /// after a reopen (the same times); its replay reaches its state, unverified. An evicted
    /// store loads its snapshot alone and replays verified; a store made again after its
    /// eviction loads the snapshot and the actions after it. A store with no record loads
    /// nothing.
    @Test func aStoreLoadsAndReplaysItsOwnRecords() async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      let path = directory.file("shared")
      let journal = try await Journal.open(path: path, configuration: Shared.small)
      let stores = try await Shared.recordInterleaved(journal, stores: 0..<10, rounds: 0..<30)
      let expected7 = Shared.expected(store: 7, rounds: 0..<30)

      // Live, while it records: what it recorded is written first, then read.
      let live = try await journal.load(7)
      #expect(live.key == "7")
      #expect(live.startState == nil)
      #expect(live.actions == (0..<30).flatMap { Shared.actions(store: 7, round: $0) })
      #expect(live.enqueueTimes.count == 60)
      #expect(live.enqueueTimes.allSatisfy { $0 > 0 })
      #expect(zip(live.enqueueTimes, live.enqueueTimes.dropFirst()).allSatisfy { $0 <= $1 })
      #expect(live.segments > 1)
      #expect(live.unverifiable?.code == .noStateChecksum)
      let replay = Store(initialState: Ledger.State()) { Ledger().discardingEffects() }
      let result = try await live.replay(into: replay)
      #expect(result.actions == 60)
      #expect(await replay.state == expected7)
      guard case .unverified(let why) = result.verification else {
        Issue.record("verified without a snapshot")
        return
      }
      #expect(why.code == .noStateChecksum)

      for id in 0..<2 {
        #expect(try await journal.evict(id, finalState: await stores[id]!.state))
      }
      let again = try await journal.makeStore(
        for: 0, initialState: Ledger.State(), reducer: { Ledger() })
      for round in 30..<35 {
        for action in Shared.actions(store: 0, round: round) { await again.send(action) }
      }
      let summary = try await journal.close()

      let reopened = try await Journal.open(path: path, configuration: Shared.small)
      var total = 0
      for segment in 0..<summary.segments {
        total += fileBytes(directory.file("shared.\(segment).journal")).count
      }
      let loaded = try await reopened.load(7)
      #expect(loaded.actions == live.actions)
      #expect(loaded.enqueueTimes == live.enqueueTimes)
      #expect(
        loaded.bytesRead > 0 && loaded.bytesRead < total / 5, "\(loaded.bytesRead) of \(total)")

      // Evicted: its snapshot alone, verified by a replay from it.
      let expected1 = Shared.expected(store: 1, rounds: 0..<30)
      let evicted = try await reopened.load(1)
      #expect(evicted.startState == expected1)
      #expect(evicted.startChecksum == (try StateChecksum.of(expected1)))
      #expect(evicted.actions.isEmpty)
      #expect(evicted.unverifiable == nil)
      #expect(evicted.bytesRead > (try Shared.snapshotRecordSize(expected1, key: "1")))
      let fromSnapshot = Store(initialState: evicted.startState!) { Ledger().discardingEffects() }
      let verified = try await evicted.replay(into: fromSnapshot)
      #expect(verified.verification == .verified(checksum: try StateChecksum.of(expected1)))
      // A store not made from the snapshot's state does not verify.
      let wrong = Store(initialState: Ledger.State()) { Ledger().discardingEffects() }
      do {
        try await evicted.replay(into: wrong)
        Issue.record("a replay from the wrong state verified")
      } catch let error as JournalError {
        #expect(error.code == .stateMismatch)
        #expect(error.file.hasPrefix("\(path)."))
      }

      // Evicted, then made again: the snapshot, then the actions after it.
      let remade = try await reopened.load(0)
      #expect(remade.startState == Shared.expected(store: 0, rounds: 0..<30))
      #expect(remade.actions == (30..<35).flatMap { Shared.actions(store: 0, round: $0) })
      let continued = Store(initialState: remade.startState!) { Ledger().discardingEffects() }
      try await remade.replay(into: continued)
      #expect(await continued.state == Shared.expected(store: 0, rounds: 0..<35))

      // No record at all.
      let unknown = try await reopened.load(99)
      #expect(unknown.startState == nil && unknown.actions.isEmpty && unknown.bytesRead == 0)
      #expect(unknown.unverifiable?.code == .noStateChecksum)
      try await reopened.close()
    }

    /// A damaged record of one store: loading that store names the segment and the record's
    /// byte; loading another store never reads it and succeeds.
    @Test func anotherStoresDamagedRecordIsNotRead() async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      let path = directory.file("shared")
      let journal = try await Journal.open(path: path, configuration: Shared.small)
      _ = try await Shared.recordInterleaved(journal, stores: 0..<4, rounds: 0..<10)
      try await journal.close()

      let reopened = try await Journal.open(path: path, configuration: Shared.small)
      let slot = try #require(reopened.sink.core.withLock { $0.slots["2"] })
      let first = try #require(reopened.sink.core.withLock { $0.stores[slot].extents.first })
      let segmentPath = directory.file("shared.\(first.segment).journal")
      var segment = fileBytes(segmentPath)
      segment[Int(first.offset) + first.length - 1] ^= 0xFF
      writeFileBytes(segmentPath, segment)
      do {
        _ = try await reopened.load(2)
        Issue.record("loaded a damaged record")
      } catch {
        #expect(error.code == .corruptRecord)
        #expect(error.file == segmentPath)
        #expect(error.offset == Int(first.offset))
      }
      let other = try await reopened.load(1)
      #expect(other.actions == (0..<10).flatMap { Shared.actions(store: 1, round: $0) })
      try await reopened.close()
    }

    /// After a write of the journal failed (`EIO`, injected), `load` of the open journal throws
    /// that failure, naming the segment, as `close()` does. Opened again, the journal loads
    /// each store's records up to the last that reached the disk: every one flushed before
    /// the failure, none after it.
    @Test(arguments: allBackends)
    func aLoadAfterAFailedWriteThrowsTheFailure(backend: IOBackend.Preference) async throws {
      try await withWritesFailing(backend, stores: 0..<3) { fixture, failing in
        let (journal, stores, path, engine) =
          (fixture.journal, fixture.stores, fixture.path, fixture.engine)
        try await journal.flush()
        failing.store(true, ordering: .relaxed)
        for round in 10..<20 {
          for action in Shared.actions(store: 1, round: round) { await stores[1]?.send(action) }
        }
        let error = await #expect(throws: JournalError.self) { _ = try await journal.load(1) }
        Self.expectWriteFailure(error, in: path, "load(1)")
        await #expect(throws: IOError.self) { try await journal.close() }
        failing.store(false, ordering: .relaxed)

        let reopened = try await Journal.open(
          path: path, configuration: Shared.small, engine: engine)
        for id in 0..<3 {
          let loaded = try await reopened.load(id)
          #expect(loaded.actions == (0..<10).flatMap { Shared.actions(store: id, round: $0) })
        }
        try await reopened.close()
      }
    }

    /// After a write of the journal failed (`EIO`, injected), recovering a store of the open
    /// journal throws that failure, naming the segment, not a damaged index: the store whose
    /// eviction's snapshot never reached the disk, a store evicted before the failure, and a
    /// new store (`makeStore`) alike. Opened again, the journal recovers each store up to its
    /// last record that reached the disk: every one made durable before the failure.
    @Test(arguments: allBackends)
    func aRecoveryAfterAFailedWriteThrowsTheFailure(
      backend: IOBackend.Preference
    ) async throws {
      try await withWritesFailing(backend, stores: 0..<2) { fixture, failing in
        let (journal, stores, path, engine) =
          (fixture.journal, fixture.stores, fixture.path, fixture.engine)
        #expect(try await journal.evict(0, finalState: await stores[0]!.state))
        try await journal.waitUntilDurable()
        failing.store(true, ordering: .relaxed)
        for round in 10..<20 {
          for action in Shared.actions(store: 1, round: round) { await stores[1]?.send(action) }
        }
        // The snapshot enters the index in memory; its write fails.
        await #expect(throws: IOError.self) {
          try await journal.evict(1, finalState: await stores[1]!.state)
        }
        for id in 0..<2 {
          let error = await #expect(throws: JournalError.self) {
            _ = try await journal.recover(for: id, initialState: Ledger.State()) { Ledger() }
          }
          Self.expectWriteFailure(error, in: path, "recover(for: \(id))")
        }
        let refused = await #expect(throws: JournalError.self) {
          _ = try await journal.makeStore(for: 2, initialState: Ledger.State()) { Ledger() }
        }
        Self.expectWriteFailure(refused, in: path, "makeStore(for: 2)")
        await #expect(throws: IOError.self) { try await journal.close() }
        failing.store(false, ordering: .relaxed)

        let reopened = try await Journal.open(
          path: path, configuration: Shared.small, engine: engine)
        for id in 0..<2 {
          let recovery = try await reopened.recover(for: id, initialState: Ledger.State()) {
            Ledger()
          }
          #expect(recovery.state == Shared.expected(store: id, rounds: 0..<10), "store \(id)")
        }
        try await reopened.close()
      }
    }

    /// What the two failed-write tests start from: a journal of `stores` (ten rounds each,
    /// recorded) on an engine whose writes fail with `EIO` once the flag passed beside it is set.
    struct FailingWrites {
      let journal: Journal
      let stores: [Int: Store<Ledger.State, Ledger.Action>]
      let path: String
      let engine: IOEngine
    }

    func withWritesFailing(
      _ backend: IOBackend.Preference, stores: Range<Int>,
      _ body: (FailingWrites, borrowing Atomic<Bool>) async throws -> Void
    ) async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      let failing = Atomic<Bool>(false)
      try await withEngine(
        backend,
        faults: { call in call == "write" && failing.load(ordering: .relaxed) ? .error(EIO) : nil }
      ) { engine in
        let path = directory.file("shared")
        let journal = try await Journal.open(
          path: path, configuration: Shared.small, engine: engine)
        let made = try await Shared.recordInterleaved(journal, stores: stores, rounds: 0..<10)
        try await body(
          FailingWrites(journal: journal, stores: made, path: path, engine: engine), failing)
      }
    }

    /// Checks that `error` is the injected write failure, naming a segment of the journal at
    /// `path`.
    static func expectWriteFailure(
      _ error: JournalError?, in path: String, _ what: String,
      sourceLocation: SourceLocation = #_sourceLocation
    ) {
      let text = "\(what): \(String(describing: error))"
      #expect(error?.code == .io, "\(text)", sourceLocation: sourceLocation)
      #expect(error?.underlyingError?.errno == EIO, "\(text)", sourceLocation: sourceLocation)
      #expect(
        error?.file.hasPrefix("\(path).") == true && error?.file.hasSuffix(".journal") == true,
        "\(text)", sourceLocation: sourceLocation)
    }

    /// A key the journal cannot hold is refused, naming it.
    @Test func anEmptyKeyIsRefused() async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      let journal = try await SharedJournal<String, Ledger.State, Ledger.Action>.open(
        path: directory.file("shared"), configuration: Shared.small)
      do {
        _ = try await journal.load("")
        Issue.record("loaded an empty key")
      } catch {
        #expect(error.code == .invalidKey)
      }
      try await journal.close()
    }
  }
}

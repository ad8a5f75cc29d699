#if canImport(Glibc)
  import Glibc
#endif
import Clocks
import Foundation
import SpoolCore
@testable import SpoolIO
@testable import SpoolJournal
import Testing

extension SpoolJournalTests {
  /// `SharedJournal`: many stores in one journal, recovered one by one from their own records.
  @Suite struct SharedJournalTests {
    typealias Journal = SharedJournal<Int, Ledger.State, Ledger.Action>

    /// Small segments and buffers: a few hundred actions span many segments.
    static let small = JournalConfiguration(
      maxFileBytes: 4_096, bufferBytes: 4_096, flushInterval: .milliseconds(5))

    /// The actions of store `store` in round `round`: a note naming both, and an add.
    static func actions(store: Int, round: Int) -> [Ledger.Action] {
      [.note("\(store)/\(round)"), .add(store * 1_000 + round)]
    }

    /// The state `rounds` rounds of `actions(store:round:)` lead to.
    static func expected(store: Int, rounds: Range<Int>, from state: Ledger.State = Ledger.State())
      -> Ledger.State
    {
      var state = state
      for round in rounds {
        for action in actions(store: store, round: round) {
          _ = Ledger().reduce(into: &state, action: action)
        }
      }
      return state
    }

    /// The size of a snapshot record of `state` for key `key`.
    static func snapshotRecordSize(_ state: Ledger.State, key: String) throws -> Int {
      let encoded = JournalBytes()
      try JournalValueEncoder(into: encoded).encode(state)
      return JournalFormat.recordOverhead + 1 + 1 + key.utf8.count + 8 + encoded.count
    }

    /// Records `rounds` rounds for each of `stores` stores, interleaved (round by round, store
    /// by store); returns the stores.
    static func recordInterleaved(
      _ journal: Journal, stores: Range<Int>, rounds: Range<Int>
    ) async throws -> [Int: Store<Ledger.State, Ledger.Action>] {
      var made: [Int: Store<Ledger.State, Ledger.Action>] = [:]
      for id in stores {
        made[id] = try await journal.makeStore(for: id, initialState: Ledger.State()) { Ledger() }
      }
      for round in rounds {
        for id in stores {
          for action in actions(store: id, round: round) { await made[id]?.send(action) }
        }
      }
      return made
    }

    /// 40 stores, interleaved over many segments; half evicted (a snapshot each). Reopened,
    /// every store recovers to its exact state from the index alone (no segment scanned); an
    /// evicted store reads its snapshot record and nothing else, and verifies; the others
    /// read their own records and are unverified (not evicted).
    @Test func manyInterleavedStoresRecoverExactly() async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      let path = directory.file("shared")
      let journal = try await Journal.open(path: path, configuration: Self.small)
      let stores = try await Self.recordInterleaved(journal, stores: 0..<40, rounds: 0..<30)
      for id in 0..<20 {
        #expect(try await journal.evict(id, finalState: await stores[id]!.state))
      }
      let summary = try await journal.close()
      #expect(summary.actions == 40 * 30 * 2)
      #expect(summary.segments > 10)

      let reopened = try await Journal.open(path: path, configuration: Self.small)
      #expect(reopened.opening.segments == summary.segments)
      #expect(reopened.opening.indexedSegments == summary.segments)
      #expect(reopened.opening.scannedSegments == 0)
      #expect(reopened.opening.stores == 40)
      var total = 0
      for segment in 0..<summary.segments {
        total += fileBytes(directory.file("shared.\(segment).journal")).count
      }
      for id in 0..<40 {
        let recovery = try await reopened.recover(for: id, initialState: Ledger.State()) {
          Ledger()
        }
        let expected = Self.expected(store: id, rounds: 0..<30)
        #expect(recovery.state == expected, "store \(id)")
        if id < 20 {
          #expect(recovery.startedFromSnapshot)
          #expect(recovery.actions == 0)
          #expect(recovery.bytesRead == (try Self.snapshotRecordSize(expected, key: "\(id)")))
          #expect(recovery.verification == .verified(checksum: try StateChecksum.of(expected)))
        } else {
          #expect(!recovery.startedFromSnapshot)
          #expect(recovery.actions == 60)
          // Its own 60 records: a small share of the 40 stores' bytes.
          #expect(recovery.bytesRead > 0 && recovery.bytesRead < total / 20)
          guard case .unverified(let why) = recovery.verification else {
            Issue.record("store \(id) verified without a snapshot")
            continue
          }
          #expect(why.code == .noStateChecksum)
        }
      }
      try await reopened.close()
      // The second run recorded nothing: no segment of its own.
      #expect(directory.entries().filter { $0.hasSuffix(".journal") }.count == summary.segments)
    }

    /// Wired into a `StoreRegistry`: shutting the registry down evicts every store (a snapshot
    /// each); a registry on the reopened journal recovers each store, and `.recovered`
    /// re-arms the reminder that was armed, which fires.
    @Test func registryEvictionSnapshotsAndCreationRecovers() async throws {
      typealias Reminders = SharedJournal<Int, Reminder.State, Reminder.Action>
      typealias Registry = StoreRegistry<Int, Reminder.State, Reminder.Action>
      func registry(_ journal: Reminders, clock: any Clock<Duration>) -> Registry {
        Registry(onEvict: { id, state in
          do {
            try await journal.evict(id, finalState: state)
          } catch {
            Issue.record("evicting \(id): \(error)")
          }
        }) { id in
          try await journal.makeStore(
            for: id, initialState: Reminder.State(), recovered: .recovered
          ) {
            Reminder(clock: clock)
          }
        }
      }
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      let path = directory.file("reminders")
      let journal = try await Reminders.open(path: path)
      let first = registry(journal, clock: ContinuousClock())
      _ = try await first.send(.arm, to: 1)
      _ = try await first.send(.recovered, to: 2)
      await first.shutdown(deadline: .now)
      try await journal.close()

      let reopened = try await Reminders.open(path: path)
      #expect(reopened.opening.stores == 2)
      let second = registry(reopened, clock: ImmediateClock())
      let fired = try await second.withStore(1) { store in
        await store.finish()
        return await store.state
      }
      #expect(fired == Reminder.State(armed: false, fired: true))
      let idle = try await second.send(.recovered, to: 2) { $0 }
      #expect(idle == Reminder.State())
      await second.shutdown(deadline: .now)

      let recovery = try await reopened.recover(for: 1, initialState: Reminder.State()) {
        Reminder(clock: ContinuousClock())
      }
      #expect(recovery.state == fired)
      #expect(recovery.startedFromSnapshot)
      #expect(recovery.verification == .verified(checksum: try StateChecksum.of(fired)))
      try await reopened.close()
    }

    /// A second store of a key that records is refused; an empty or overlong key is refused;
    /// evicting a key without a store writes nothing.
    @Test func keysInUseAndInvalidKeysAreRefused() async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      let journal = try await SharedJournal<String, Ledger.State, Ledger.Action>.open(
        path: directory.file("keys"), key: { $0 })
      let store = try await journal.makeStore(for: "a", initialState: Ledger.State()) {
        Ledger()
      }
      await #expect(throws: JournalError.self) {
        _ = try await journal.makeStore(for: "a", initialState: Ledger.State()) { Ledger() }
      }
      do {
        _ = try await journal.recover(for: "a", initialState: Ledger.State()) { Ledger() }
        Issue.record("recovered a store that records")
      } catch {
        #expect(error.code == .inUse)
      }
      for bad in ["", String(repeating: "k", count: 1_025)] {
        do {
          _ = try await journal.makeStore(for: bad, initialState: Ledger.State()) { Ledger() }
          Issue.record("made a store of a key of \(bad.utf8.count) bytes")
        } catch {
          #expect(error.code == .invalidKey)
          #expect("\(error)".contains("1 to 1024"))
        }
      }
      #expect(try await journal.evict("b", finalState: Ledger.State()) == false)
      await store.send(.add(1))
      #expect(try await journal.evict("a", finalState: await store.state))
      // Evicted: its later actions are dropped.
      await store.send(.add(2))
      let summary = try await journal.close()
      #expect(summary.actions == 1)
      #expect(summary.droppedActions == 1)
      do {
        _ = try await journal.makeStore(for: "c", initialState: Ledger.State()) { Ledger() }
        Issue.record("made a store of a closed journal")
      } catch {
        #expect(error.code == .storeBusy)
      }
    }

    /// A lost index is rebuilt by scanning its segment; a stale one (a segment cut short by a
    /// crash, or an index of another segment) is told apart and rebuilt too; recovery is
    /// exact either way, and the next open uses the rebuilt indexes.
    @Test func lostAndStaleIndexesAreRebuilt() async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      let path = directory.file("shared")
      let journal = try await Journal.open(path: path, configuration: Self.small)
      _ = try await Self.recordInterleaved(journal, stores: 0..<5, rounds: 0..<60)
      let summary = try await journal.close()
      #expect(summary.segments >= 4)

      // Lost: segment 1's index. Stale: segment 2's index replaced by segment 0's.
      unlink(directory.file("shared.1.index"))
      writeFileBytes(directory.file("shared.2.index"), fileBytes(directory.file("shared.0.index")))
      let rebuilt = try await Journal.open(path: path, configuration: Self.small)
      #expect(rebuilt.opening.scannedSegments == 2)
      #expect(rebuilt.opening.staleIndexes == 1)
      #expect(rebuilt.opening.rebuiltIndexes == 2)
      for id in 0..<5 {
        let recovery = try await rebuilt.recover(for: id, initialState: Ledger.State()) {
          Ledger()
        }
        #expect(recovery.state == Self.expected(store: id, rounds: 0..<60))
      }
      try await rebuilt.close()
      let again = try await Journal.open(path: path, configuration: Self.small)
      #expect(again.opening.scannedSegments == 0)
      try await again.close()

      // A crash cut the last segment inside a record: its index no longer fits it.
      let last = directory.file("shared.\(summary.segments - 1).journal")
      let bytes = fileBytes(last)
      writeFileBytes(last, Array(bytes.dropLast(5)))
      let cut = try await Journal.open(path: path, configuration: Self.small)
      #expect(cut.opening.staleIndexes == 1)
      #expect(cut.opening.scannedSegments == 1)
      #expect(cut.opening.cuts.count == 1)
      #expect(cut.opening.cuts.first?.code == .cutOff)
      #expect(cut.opening.cuts.first?.file == last)
      // The store whose record was cut lost that one action, no other.
      var lost = 0
      for id in 0..<5 {
        let recovery = try await cut.recover(for: id, initialState: Ledger.State()) { Ledger() }
        let full = Self.expected(store: id, rounds: 0..<60)
        if recovery.state != full {
          lost += 1
          #expect(recovery.state.count == full.count - 1)
        }
      }
      #expect(lost == 1)
      try await cut.close()
    }

    /// A damaged index file fails the open with a one-line error naming it, the byte and what
    /// is wrong; an index that is whole but names the wrong record fails that store's
    /// recovery, naming the segment and the byte; a damaged record does too.
    @Test func damagedIndexesAndRecordsAreReported() async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      let path = directory.file("shared")
      let journal = try await Journal.open(path: path, configuration: Self.small)
      _ = try await Self.recordInterleaved(journal, stores: 0..<3, rounds: 0..<10)
      let summary = try await journal.close()
      #expect(summary.segments >= 1)
      let indexPath = directory.file("shared.0.index")
      let original = fileBytes(indexPath)

      var flipped = original
      flipped[30] ^= 0x10
      writeFileBytes(indexPath, flipped)
      do {
        _ = try await Journal.open(path: path, configuration: Self.small)
        Issue.record("a damaged index was used")
      } catch {
        #expect(error.code == .corruptIndex)
        #expect(error.file == indexPath)
        #expect(error.offset == original.count - 4)
        #expect(!"\(error)".contains("\n"))
      }
      writeFileBytes(indexPath, Array(original.prefix(20)))
      do {
        _ = try await Journal.open(path: path, configuration: Self.small)
        Issue.record("a cut index was used")
      } catch {
        #expect(error.code == .corruptIndex)
        #expect(error.file == indexPath)
      }

      // Whole, but store 0's records swapped with store 1's: recovery checks each key.
      var contents = try SharedJournalIndexFile.decode(original, file: indexPath)
      let position0 = try #require(contents.stores.keys.firstIndex(of: "0"))
      let position1 = try #require(contents.stores.keys.firstIndex(of: "1"))
      var swapped = SharedSegmentStores()
      for (position, key) in contents.stores.keys.enumerated() {
        let source = position == position0 ? position1 : position == position1 ? position0 : position
        swapped.append(key, contents.stores.extents[source])
      }
      contents.stores = swapped
      writeFileBytes(
        indexPath,
        SharedJournalIndexFile.encode(
          segment: contents.segment, runID: contents.runID, segmentBytes: contents.segmentBytes,
          stores: contents.stores))
      let misled = try await Journal.open(path: path, configuration: Self.small)
      do {
        _ = try await misled.recover(for: 0, initialState: Ledger.State()) { Ledger() }
        Issue.record("recovered store 0 from store 1's records")
      } catch {
        #expect(error.code == .corruptIndex)
        #expect(error.file == directory.file("shared.0.journal"))
        #expect("\(error)".contains("names another store"))
      }
      try await misled.close()

      // The index restored, a byte of store 2's first record damaged.
      writeFileBytes(indexPath, original)
      let first = try #require(contents.stores.extents[contents.stores.keys.firstIndex(of: "2")!].first)
      let segmentPath = directory.file("shared.0.journal")
      var segment = fileBytes(segmentPath)
      segment[Int(first.offset) + first.length - 1] ^= 0xFF
      writeFileBytes(segmentPath, segment)
      let damaged = try await Journal.open(path: path, configuration: Self.small)
      do {
        _ = try await damaged.recover(for: 2, initialState: Ledger.State()) { Ledger() }
        Issue.record("recovered a damaged record")
      } catch {
        #expect(error.code == .corruptRecord)
        #expect(error.file == segmentPath)
        #expect(error.offset == Int(first.offset))
      }
      // The other stores do not read that record.
      let other = try await damaged.recover(for: 1, initialState: Ledger.State()) { Ledger() }
      #expect(other.state == Self.expected(store: 1, rounds: 0..<10))
      try await damaged.close()
    }

    /// A shared journal's segment given to `ActionJournal`, and a single store's journal given
    /// to `SharedJournal`, are refused, each naming the other's version.
    @Test func formatsAreToldApart() async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      let shared = try await Journal.open(path: directory.file("shared"))
      _ = try await Self.recordInterleaved(shared, stores: 0..<2, rounds: 0..<2)
      try await shared.close()
      do {
        _ = try await ActionJournal<Ledger.Action>(path: directory.file("shared")).load()
        Issue.record("a shared segment loaded as a single store's journal")
      } catch {
        #expect(error.code == .foreignFile)
        #expect(error.offset == JournalFormat.versionOffset)
        #expect("\(error)".contains("shared journal (version 5)"))
      }
      let engine = IOEngine.shared
      _ = try await recordLedger([.add(1)], to: directory.file("single"), engine: engine)
      do {
        _ = try await Journal.open(path: directory.file("single"))
        Issue.record("a single store's journal opened as a shared one")
      } catch {
        #expect(error.code == .foreignFile)
        #expect(error.file == directory.file("single.0.journal"))
        #expect("\(error)".contains("single store's journal (version 4)"))
      }
      // A damaged version byte (4 read as 5) is corruption, not a file of the other kind.
      let single = directory.file("single.0.journal")
      var bytes = fileBytes(single)
      bytes[JournalFormat.versionOffset] = 5
      writeFileBytes(single, bytes)
      do {
        _ = try await ActionJournal<Ledger.Action>(path: directory.file("single")).load()
        Issue.record("a damaged version loaded")
      } catch {
        #expect(error.code == .corruptHeader)
        #expect(error.file == single)
      }
    }

    /// Eight producers, one store each, each acknowledging every action only after
    /// `waitUntilDurable()`: the journal's files as they are then, opened as after a crash (a
    /// copy under another name, since the first journal, not closed, holds the lock), recover
    /// every acknowledged action of every store, exactly; syncs were shared.
    @Test(arguments: allBackends)
    func concurrentProducersAcrossStoresAreDurable(backend: IOBackend.Preference) async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await withEngine(backend) { engine in
        let path = directory.file("durable")
        let journal = try await Journal.open(path: path, engine: engine)
        try await journal.waitUntilDurable()
        let acknowledged = try await withThrowingTaskGroup(of: Int.self) { group in
          for producer in 0..<8 {
            let store = try await journal.makeStore(for: producer, initialState: Ledger.State())
            { Ledger() }
            group.addTask {
              for round in 0..<100 {
                await store.send(.note("\(producer)/\(round)"))
                try await journal.waitUntilDurable()
              }
              return 100
            }
          }
          return try await group.reduce(0, +)
        }
        #expect(acknowledged == 800)
        let syncs = journal.sink.writer.durableSyncs
        #expect(syncs >= 1 && syncs <= 800)

        let crashed = directory.file("crashed")
        for name in directory.entries() where name.hasPrefix("durable.") && name != "durable.lock" {
          writeFileBytes(
            crashed + name.dropFirst("durable".count), fileBytes(directory.file(name)))
        }
        let second = try await Journal.open(path: crashed, engine: engine)
        #expect(second.opening.scannedSegments == 1)
        for producer in 0..<8 {
          let recovery = try await second.recover(for: producer, initialState: Ledger.State()) {
            Ledger()
          }
          #expect(recovery.state.notes == (0..<100).map { "\(producer)/\($0)" })
          #expect(recovery.actions == 100)
        }
        try await second.close()
        try await journal.close()
      }
    }

    /// Compaction removes the segments before it: stores 0-3 are evicted (their snapshots are
    /// copied forward), store 9 never is (its actions are); recovery after it is exact.
    @Test func compactionRemovesSegmentsSnapshottedPast() async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      let path = directory.file("shared")
      let journal = try await Journal.open(path: path, configuration: Self.small)
      let early = try await Self.recordInterleaved(journal, stores: 0..<4, rounds: 0..<40)
      // Store 9 records only later, in the segments after the first ones.
      try await journal.flush()
      let segmentsBefore = directory.entries().filter { $0.hasSuffix(".journal") }.count
      let late = try await Self.recordInterleaved(journal, stores: 9..<10, rounds: 0..<40)
      for id in 0..<4 {
        #expect(try await journal.evict(id, finalState: await early[id]!.state))
      }
      let removed = try await journal.compact()
      // Every segment before store 9's first record holds only stores 0-3, now snapshotted.
      #expect(removed.count >= segmentsBefore - 1)
      #expect(removed == Array(0..<removed.count))
      for segment in removed {
        #expect(!directory.entries().contains("shared.\(segment).journal"))
        #expect(!directory.entries().contains("shared.\(segment).index"))
      }
      try await journal.close()
      _ = late

      let reopened = try await Journal.open(path: path, configuration: Self.small)
      for id in [0, 1, 2, 3, 9] {
        let recovery = try await reopened.recover(for: id, initialState: Ledger.State()) {
          Ledger()
        }
        #expect(recovery.state == Self.expected(store: id, rounds: 0..<40), "store \(id)")
      }
      try await reopened.close()
    }

    /// The child of ``aKilledProcessLosesNoAcknowledgedActionOfAnyStore()``: eight stores of
    /// one shared journal, one producer each, appending each acknowledged note to a file,
    /// until it is killed. Runs only in that child process.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[KillChild.sharedVariable] != nil))
    func sharedKillChildRecordsUntilKilled() async throws {
      let folder = ProcessInfo.processInfo.environment[KillChild.sharedVariable] ?? ""
      let journal = try await Journal.open(
        path: "\(folder)/journal",
        configuration: JournalConfiguration(maxFileBytes: 64 << 10, bufferBytes: 16 << 10))
      let acks = open("\(folder)/acks", O_WRONLY | O_CREAT | O_APPEND, 0o644)
      #expect(acks >= 0)
      let deadline = ContinuousClock.now + .seconds(60)
      try await withThrowingTaskGroup(of: Void.self) { group in
        try await Self.addDurableProducers(
          to: &group, journal: journal, acks: acks, until: deadline)
        try await group.waitForAll()
      }
    }

    /// Adds to `group` eight producers, one store of `journal` each (IDs 0 to 7), that record
    /// notes ("producer/index") until `deadline`, appending each note to the file open at
    /// `acks` once it is durable: the kill children's load.
    static func addDurableProducers(
      to group: inout ThrowingTaskGroup<Void, any Error>, journal: Journal, acks: Int32,
      until deadline: ContinuousClock.Instant
    ) async throws {
      for producer in 0..<8 {
        let store = try await journal.makeStore(for: producer, initialState: Ledger.State()) {
          Ledger()
        }
        group.addTask {
          var index = 0
          while ContinuousClock.now < deadline {
            await store.send(.note("\(producer)/\(index)"))
            try await journal.waitUntilDurable()
            Self.appendLine("\(producer)/\(index)", to: acks)
            index += 1
          }
        }
      }
    }

    /// Appends `text` and a newline to the file open at `descriptor`.
    static func appendLine(_ text: String, to descriptor: Int32) {
      let line = Array("\(text)\n".utf8)
      _ = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }

    /// `kill -9` of a process that records eight stores into one shared journal with durable
    /// acknowledgements, 20 times at random moments: every note the child acknowledged is in
    /// its store's recovered state, in order.
    @Test func aKilledProcessLosesNoAcknowledgedActionOfAnyStore() async throws {
      for round in 0..<20 {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let child = try KillChild(
          folder: directory.path, variable: KillChild.sharedVariable,
          filter: "sharedKillChildRecordsUntilKilled")
        let acked = try await child.waitForAcknowledgements(atLeast: 1)
        #expect(acked, "round \(round): the child acknowledged nothing within 60 s")
        try await Task.sleep(for: .milliseconds(Int.random(in: 0...300)))
        child.kill()
        let acknowledged = directory.linesOf("acks")
        let journal = try await Journal.open(path: directory.file("journal"))
        let lost = try await journal.lostNotes(
          of: Array(0..<8), acknowledged: acknowledged, round: round)
        #expect(lost == 0, "round \(round): \(lost) of \(acknowledged.count) lost")
        try await journal.close()
      }
    }
  }
}

#if canImport(Glibc)
  import Glibc
#endif
import Foundation
import SpoolCore
import Synchronization
@testable import SpoolIO
@testable import SpoolJournal
import Testing

extension SpoolJournalTests {
  /// The writer reserves disk space ahead of its writes (`fallocate` with
  /// `FALLOC_FL_KEEP_SIZE`), on real files, on both backends.
  @Suite struct JournalSpaceReservationTests {
    /// The file's size and its allocated bytes (`st_blocks` counts 512-byte units).
    static func sizes(_ path: String) -> (size: Int, allocated: Int) {
      var status = stat()
      guard stat(path, &status) == 0 else { return (-1, -1) }
      return (Int(status.st_size), Int(status.st_blocks) * 512)
    }

    /// Records `count` `.add` actions in batches of 1,000 and flushes after each batch;
    /// returns the error of the first flush that failed, if any, and how many were flushed.
    static func record(
      _ count: Int, into store: Store<Ledger.State, Ledger.Action>,
      recorder: JournalRecorder<Ledger.Action>
    ) async -> (flushed: Int, enqueued: Int, failure: (any Error)?) {
      let filled = await Ledger.fill(store, upTo: count, batch: 1_000) {
        try await recorder.flush()
      }
      return (filled.settled, filled.enqueued, filled.failure)
    }

    /// Records `count` actions to a new journal at `path` whose files rotate at
    /// `maxFileBytes`, finishes it, and returns the indices of its files.
    static func recordRotated(
      _ count: Int, to path: String, maxFileBytes: Int, engine: IOEngine,
      sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [Int] {
      let configuration = JournalConfiguration(maxFileBytes: maxFileBytes, bufferBytes: 16 << 10)
      let recorder = try ActionJournal<Ledger.Action>.recording(
        to: path, configuration: configuration, engine: engine)
      let store = Store(initialState: Ledger.State(), instrumentation: recorder) { Ledger() }
      let (_, _, failure) = await record(count, into: store, recorder: recorder)
      #expect(failure == nil, "\(String(describing: failure))", sourceLocation: sourceLocation)
      try await recorder.finish(finalState: await store.state)
      return try JournalFiles.indices(of: path)
    }

    static func expectInOrder(_ actions: [Ledger.Action]) {
      for (index, action) in actions.enumerated() where action != .add(index) {
        Issue.record("action \(index) is \(action)")
        return
      }
    }

    /// A recorder stopped without `finish` (as by a crash): the file's size is what was
    /// written, past which space is reserved; no reserved zeros are inside the file, so it
    /// loads every action written, cut off after a whole record.
    @Test(arguments: allBackends)
    func aStopWithoutFinishLeavesNoZeroTail(backend: IOBackend.Preference) async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await withEngine(backend) { engine in
        let path = directory.file("stopped")
        let recorder = try ActionJournal<Ledger.Action>.recording(
          to: path, configuration: JournalConfiguration(bufferBytes: 16 << 10), engine: engine)
        let store = Store(initialState: Ledger.State(), instrumentation: recorder) { Ledger() }
        let (flushed, _, failure) = await Self.record(20_000, into: store, recorder: recorder)
        #expect(failure == nil, "\(String(describing: failure))")

        let file = "\(path).0.journal"
        let (size, allocated) = Self.sizes(file)
        #expect(size > 0 && size < JournalSpaceReservation.defaultStep)
        #expect(
          allocated >= JournalSpaceReservation.defaultStep,
          "reserved ahead: \(allocated) bytes allocated for \(size)")
        let bytes = try await JournalFileReading.read(file, engine: engine)
        #expect(bytes.count == size)
        #expect(bytes.suffix(8) != [UInt8](repeating: 0, count: 8), "no zero tail")

        let contents = try await ActionJournal<Ledger.Action>(path: path, engine: engine).load()
        #expect(contents.actions.count == flushed)
        Self.expectInOrder(contents.actions)
        let why = contents.unverifiable
        #expect(why?.code == .cutOff, "\(String(describing: why))")
        #expect(why?.description.contains("after a whole record") == true)
        try await recorder.finish(finalState: await store.state)
      }
    }

    /// A file system without `fallocate` (`EOPNOTSUPP`, injected): the journal is written
    /// with plain writes, silently, after one attempt, and replays verified.
    @Test(arguments: allBackends)
    func withoutFallocateTheJournalIsWrittenPlainly(
      backend: IOBackend.Preference
    ) async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      let attempts = Atomic<Int>(0)
      try await withEngine(
        backend,
        faults: { call in
          guard call == "fallocate" else { return nil }
          attempts.add(1, ordering: .relaxed)
          return .error(EOPNOTSUPP)
        }
      ) { engine in
        let path = directory.file("plain")
        let recorder = try ActionJournal<Ledger.Action>.recording(
          to: path, configuration: JournalConfiguration(bufferBytes: 16 << 10), engine: engine)
        let store = Store(initialState: Ledger.State(), instrumentation: recorder) { Ledger() }
        let (_, enqueued, failure) = await Self.record(20_000, into: store, recorder: recorder)
        #expect(failure == nil, "\(String(describing: failure))")
        let summary = try await recorder.finish(finalState: await store.state)
        #expect(summary.actions == enqueued)
        #expect(attempts.load(ordering: .relaxed) == 1)
        #expect(Self.sizes("\(path).0.journal").allocated < JournalSpaceReservation.defaultStep)

        let replay = Store(initialState: Ledger.State()) { Ledger().discardingEffects() }
        let result = try await ActionJournal<Ledger.Action>(path: path, engine: engine)
          .replay(into: replay)
        #expect(result.actions == enqueued)
        guard case .verified = result.verification else {
          Issue.record("not verified: \(result.verification)")
          return
        }
      }
    }

    /// Expects `file` to hold no more blocks than its bytes need: at most its size rounded up
    /// to the file system's block (`st_blksize`).
    static func expectNoReservation(
      _ file: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
      var status = stat()
      guard stat(file, &status) == 0 else {
        Issue.record("cannot stat \(file)", sourceLocation: sourceLocation)
        return
      }
      let block = Int(status.st_blksize)
      let size = Int(status.st_size)
      let allocated = Int(status.st_blocks) * 512
      #expect(
        allocated <= (size + block - 1) / block * block,
        "\(file): \(allocated) bytes allocated for \(size)", sourceLocation: sourceLocation)
    }

    /// A file that `finish` closed holds no more blocks than its bytes need: the space reserved
    /// past its end while it was written (a whole step, here on the tests' ext4) is released
    /// by truncating it to its size, which ext4 honours where it ignores a hole punched past
    /// the end. Nothing is cut: the journal replays verified.
    @Test(arguments: allBackends)
    func aFinishedFileKeepsNoReservation(backend: IOBackend.Preference) async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await withEngine(backend) { engine in
        let path = directory.file("finished")
        let recorder = try ActionJournal<Ledger.Action>.recording(
          to: path, configuration: JournalConfiguration(bufferBytes: 16 << 10), engine: engine)
        let store = Store(initialState: Ledger.State(), instrumentation: recorder) { Ledger() }
        let (_, enqueued, failure) = await Self.record(20_000, into: store, recorder: recorder)
        #expect(failure == nil, "\(String(describing: failure))")
        let file = "\(path).0.journal"
        let (size, allocated) = Self.sizes(file)
        #expect(
          allocated >= JournalSpaceReservation.defaultStep,
          "reserved ahead while written: \(allocated) bytes allocated for \(size)")

        try await recorder.finish(finalState: await store.state)
        Self.expectNoReservation(file)
        #expect(Self.sizes(file).size >= size)

        let replay = Store(initialState: Ledger.State()) { Ledger().discardingEffects() }
        let result = try await ActionJournal<Ledger.Action>(path: path, engine: engine)
          .replay(into: replay)
        #expect(result.actions == enqueued)
        guard case .verified = result.verification else {
          Issue.record("not verified: \(result.verification)")
          return
        }
      }
    }

    /// Every file a rotation closed holds no more blocks than its bytes need, as does the last
    /// one, closed by `finish`.
    @Test(arguments: allBackends)
    func rotatedFilesKeepNoReservation(backend: IOBackend.Preference) async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await withEngine(backend) { engine in
        let path = directory.file("rotated")
        let indices = try await Self.recordRotated(
          60_000, to: path, maxFileBytes: 256 << 10, engine: engine)
        #expect(indices.count > 2, "rotated: \(indices)")
        for index in indices {
          Self.expectNoReservation(JournalFormat.filePath(path, index: index))
        }
      }
    }

    /// The segments of a shared journal hold no more blocks than their bytes need once it is
    /// closed: those its rotations closed, and the last one, which `close()` closed.
    @Test(arguments: allBackends)
    func aClosedSharedJournalKeepsNoReservation(backend: IOBackend.Preference) async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await withEngine(backend) { engine in
        let path = directory.file("shared")
        let journal = try await SharedJournal<Int, Ledger.State, Ledger.Action>.open(
          path: path,
          configuration: JournalConfiguration(maxFileBytes: 256 << 10, bufferBytes: 16 << 10),
          engine: engine)
        for id in 0..<4 {
          let store = try await journal.makeStore(for: id, initialState: Ledger.State()) {
            Ledger()
          }
          for value in 0..<5_000 { await store.send(.add(value)) }
        }
        _ = try await journal.close()
        let indices = try JournalFiles.indices(of: path)
        #expect(indices.count > 1, "rotated: \(indices)")
        for index in indices {
          Self.expectNoReservation(JournalFormat.filePath(path, index: index))
        }
      }
    }

    /// Whether `file` holds more blocks than its bytes need (space reserved past its end).
    static func isOverAllocated(_ file: String) -> Bool {
      var status = stat()
      guard stat(file, &status) == 0 else { return false }
      let block = Int(status.st_blksize)
      let needed = (Int(status.st_size) + block - 1) / block * block
      return Int(status.st_blocks) * 512 > needed
    }

    /// `kill -9` of a process recording with durable acknowledgements (on `backend`) leaves
    /// its last file with the space reserved past its end; recovery (on `backend`) truncates
    /// it after its last whole record: it then holds no more blocks than its bytes need, and
    /// loads the same actions as before, every acknowledged one among them, which the
    /// recovered state holds.
    @Test(arguments: allBackends)
    func recoveryReleasesAKilledRecordersReservation(
      backend: IOBackend.Preference
    ) async throws {
      var reserved = 0
      for round in 0..<2 {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let child = try KillChild(folder: directory.path, backend: backend)
        let acked = try await child.waitForAcknowledgements(atLeast: 1)
        #expect(acked, "round \(round): the child acknowledged nothing within 60 s")
        try await Task.sleep(for: .milliseconds(Int.random(in: 0...200)))
        child.kill()
        let acknowledged = directory.linesOf("acks").compactMap(Int.init)
        let path = directory.file("journal")
        let last = try #require(try JournalFiles.indices(of: path).last)
        let file = JournalFormat.filePath(path, index: last)
        if Self.isOverAllocated(file) { reserved += 1 }
        try await withEngine(backend) { engine in
          let journal = ActionJournal<Ledger.Action>(path: path, engine: engine)
          let before = try await journal.load()
          let recovery = try await journal.recover(initialState: Ledger.State()) { Ledger() }
          Self.expectNoReservation(file)
          let after = try await journal.load()
          #expect(after.actions == before.actions, "round \(round): no whole record cut")
          #expect(after.unverifiable?.code == .cutOff, "\(String(describing: after.unverifiable))")
          let recorded = Set(after.actions.compactMap { action -> Int? in
            if case .add(let value) = action { value } else { nil }
          })
          let lost = acknowledged.filter { !recorded.contains($0) }
          #expect(lost.isEmpty, "round \(round): \(lost.count) of \(acknowledged.count) lost")
          var expected = Ledger.State()
          for action in after.actions { _ = Ledger().reduce(into: &expected, action: action) }
          #expect(recovery.state == expected)
        }
      }
      #expect(reserved > 0, "the killed recorder left space reserved in no round")
    }

    /// `kill -9` of a process recording eight stores into a shared journal (on `backend`)
    /// leaves its last segment with the space reserved past its end; opening the journal (on
    /// `backend`) truncates it after its last whole record: it then holds no more blocks than
    /// its bytes need, every acknowledged note is in its store's recovered state, and the
    /// index written for the truncated segment serves the next open, which scans none.
    @Test(arguments: allBackends)
    func openingReleasesAKilledSharedJournalsReservation(
      backend: IOBackend.Preference
    ) async throws {
      typealias Journal = SharedJournal<Int, Ledger.State, Ledger.Action>
      var reserved = 0
      for round in 0..<2 {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let child = try KillChild(
          folder: directory.path, variable: KillChild.sharedVariable,
          filter: "sharedKillChildRecordsUntilKilled", backend: backend)
        let acked = try await child.waitForAcknowledgements(atLeast: 1)
        #expect(acked, "round \(round): the child acknowledged nothing within 60 s")
        try await Task.sleep(for: .milliseconds(Int.random(in: 0...200)))
        child.kill()
        let acknowledged = directory.linesOf("acks")
        let path = directory.file("journal")
        let last = try #require(try JournalFiles.indices(of: path).last)
        let file = JournalFormat.filePath(path, index: last)
        if Self.isOverAllocated(file) { reserved += 1 }
        try await withEngine(backend) { engine in
          let journal = try await Journal.open(path: path, engine: engine)
          Self.expectNoReservation(file)
          let lost = try await journal.lostNotes(
            of: Array(0..<8), acknowledged: acknowledged, round: round)
          #expect(lost == 0, "round \(round): \(lost) of \(acknowledged.count) lost")
          try await journal.close()
          let again = try await Journal.open(path: path, engine: engine)
          #expect(again.opening.scannedSegments == 0, "\(again.opening)")
          try await again.close()
        }
      }
      #expect(reserved > 0, "the killed journal left space reserved in no round")
    }

    /// The configuration of ``sealedSegmentChildWaitsToBeKilled()``: segments of 64 KiB (so
    /// each is reserved whole at its first write), a buffer larger than the record that seals
    /// segment 0, and no timed flush, so that nothing writes segment 1.
    static let sealing = JournalConfiguration(
      maxFileBytes: 64 << 10, bufferBytes: 256 << 10, flushInterval: nil)
    /// The notes the sealed segment holds.
    static let sealedNotes = (0..<10).map { "0/\($0)" }

    /// The child of ``openingReleasesAnIndexedSegmentsReservation(backend:)``: records a few
    /// notes into a shared journal, then a note too large for segment 0, which seals it (its
    /// rotation record written, synced and indexed) and starts segment 1 in the buffer, which
    /// nothing writes; once the index file is there, says so in the file `ready` and waits to
    /// be killed. Runs only in that child process.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[KillChild.sealedVariable] != nil))
    func sealedSegmentChildWaitsToBeKilled() async throws {
      let folder = ProcessInfo.processInfo.environment[KillChild.sealedVariable] ?? ""
      let path = "\(folder)/journal"
      let journal = try await SharedJournal<Int, Ledger.State, Ledger.Action>.open(
        path: path, configuration: Self.sealing)
      let store = try await journal.makeStore(for: 0, initialState: Ledger.State()) { Ledger() }
      for note in Self.sealedNotes { await store.send(.note(note)) }
      await store.send(.note(String(repeating: "x", count: 64 << 10)))
      let index = SharedJournalIndexFile.path(path, segment: 0)
      var waited = 0
      while access(index, F_OK) != 0, waited < 6_000 {
        try await Task.sleep(for: .milliseconds(10))
        waited += 1
      }
      let ready = open("\(folder)/ready", O_WRONLY | O_CREAT | O_APPEND, 0o644)
      #expect(ready >= 0)
      SharedJournalTests.appendLine("indexed", to: ready)
      try await Task.sleep(for: .seconds(60))
    }

    /// `kill -9` of a process after it wrote the index of a segment it sealed, before the next
    /// segment's first write, which would have released the sealed one's reservation: the
    /// segment is whole and indexed, so opening the journal (on `backend`) does not scan it,
    /// and still truncates it to its indexed length, which releases the space reserved past
    /// its end. Nothing is cut: the store recovers every note, and the next open releases
    /// nothing more.
    @Test(arguments: allBackends)
    func openingReleasesAnIndexedSegmentsReservation(
      backend: IOBackend.Preference
    ) async throws {
      typealias Journal = SharedJournal<Int, Ledger.State, Ledger.Action>
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      let child = try KillChild(
        folder: directory.path, variable: KillChild.sealedVariable,
        filter: "sealedSegmentChildWaitsToBeKilled", backend: backend)
      let indexed = try await child.waitForLines(in: "ready", atLeast: 1)
      child.kill()
      try #require(indexed, "the child indexed no segment within 60 s")
      let path = directory.file("journal")
      let segment = JournalFormat.filePath(path, index: 0)
      #expect(try JournalFiles.indices(of: path) == [0], "segment 1 is never written")
      let (size, allocated) = Self.sizes(segment)
      #expect(
        Self.isOverAllocated(segment),
        "the killed run left its reservation: \(allocated) bytes allocated for \(size)")
      try await withEngine(backend) { engine in
        let journal = try await Journal.open(path: path, engine: engine)
        let opening = journal.opening
        #expect(opening.indexedSegments == 1 && opening.scannedSegments == 0, "\(opening)")
        #expect(opening.releasedReservations == 1, "\(opening)")
        Self.expectNoReservation(segment)
        #expect(Self.sizes(segment).size == size, "nothing cut")
        let recovery = try await journal.recover(for: 0, initialState: Ledger.State()) {
          Ledger()
        }
        #expect(recovery.state.notes == Self.sealedNotes)
        try await journal.close()
        let again = try await Journal.open(path: path, engine: engine)
        #expect(again.opening.scannedSegments == 0, "\(again.opening)")
        #expect(again.opening.releasedReservations == 0, "\(again.opening)")
        try await again.close()
      }
    }

    /// Reserves a step past the end of `file` again (`fallocate` with `FALLOC_FL_KEEP_SIZE`),
    /// as the writer did before the truncation that released it: what a process killed just
    /// before that truncation leaves.
    static func reserveAgain(_ file: String, engine: IOEngine) async throws {
      let handle = try await IOFile.open(file, options: [.write], on: engine)
      let size = try await handle.status().size
      try await handle.allocateSpace(
        .keepSize, offset: size, length: UInt64(JournalSpaceReservation.defaultStep))
      try await handle.close()
    }

    /// A process killed between `finish`'s sync and its truncation leaves a whole last file,
    /// its end record synced, with the space reserved past its end (built here by reserving
    /// that space again on a finished journal). Recovery (on `backend`) leaves it while a
    /// recorder holds the journal's lock, then truncates it to its length: the file holds no
    /// more blocks than its bytes need, and the journal recovers verified, every action in it.
    @Test(arguments: allBackends)
    func recoveryReleasesAFinishedFilesReservation(
      backend: IOBackend.Preference
    ) async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await withEngine(backend) { engine in
        let path = directory.file("finished")
        let recorder = try ActionJournal<Ledger.Action>.recording(
          to: path, configuration: JournalConfiguration(bufferBytes: 16 << 10), engine: engine)
        let store = Store(initialState: Ledger.State(), instrumentation: recorder) { Ledger() }
        let (_, enqueued, failure) = await Self.record(5_000, into: store, recorder: recorder)
        #expect(failure == nil, "\(String(describing: failure))")
        let finalState = await store.state
        try await recorder.finish(finalState: finalState)
        let file = "\(path).0.journal"
        let size = Self.sizes(file).size
        try await Self.reserveAgain(file, engine: engine)
        #expect(Self.isOverAllocated(file), "reserved again: \(Self.sizes(file))")

        let journal = ActionJournal<Ledger.Action>(path: path, engine: engine)
        let lock = try JournalLock(path: path, holder: "a recorder")
        _ = try await journal.recover(initialState: Ledger.State()) { Ledger() }
        #expect(Self.isOverAllocated(file), "left while the lock is held")
        lock.release()

        let recovery = try await journal.recover(initialState: Ledger.State()) { Ledger() }
        Self.expectNoReservation(file)
        #expect(Self.sizes(file).size == size, "nothing cut")
        #expect(recovery.actions == enqueued)
        #expect(recovery.state == finalState)
        guard case .verified = recovery.verification else {
          Issue.record("not verified: \(recovery.verification)")
          return
        }
      }
    }

    /// A process killed after a rotation, before the next file's first write (which releases
    /// the rotated file's reservation), leaves the rotated file whole, ending with its rotation
    /// record, with the space reserved past its end, and no next file (built here from a
    /// rotated journal: its last file removed, the one before it reserved again). Recovery (on
    /// `backend`), cut off at the missing file, truncates the rotated file to its length.
    @Test(arguments: allBackends)
    func recoveryReleasesARotatedFilesReservation(
      backend: IOBackend.Preference
    ) async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await withEngine(backend) { engine in
        let path = directory.file("rotated")
        let indices = try await Self.recordRotated(
          20_000, to: path, maxFileBytes: 64 << 10, engine: engine)
        let last = try #require(indices.last)
        #expect(last >= 2, "rotated: \(indices)")
        try FileManager.default.removeItem(atPath: JournalFormat.filePath(path, index: last))
        let file = JournalFormat.filePath(path, index: last - 1)
        let size = Self.sizes(file).size
        try await Self.reserveAgain(file, engine: engine)
        #expect(Self.isOverAllocated(file), "reserved again: \(Self.sizes(file))")

        let journal = ActionJournal<Ledger.Action>(path: path, engine: engine)
        let before = try await journal.load()
        let recovery = try await journal.recover(initialState: Ledger.State()) { Ledger() }
        Self.expectNoReservation(file)
        #expect(Self.sizes(file).size == size, "nothing cut")
        #expect(recovery.actions == before.actions.count)
        guard case .unverified(let why) = recovery.verification else {
          Issue.record("verified without its last file")
          return
        }
        #expect(why.code == .cutOff, "\(why)")
      }
    }

    /// The reservation's arithmetic: whole steps, within the file size limit, never short of
    /// the bytes to write.
    @Test func reservationsEndAtWholeStepsWithinTheFileLimit() {
      let reservation = JournalSpaceReservation.forFiles(of: 64 << 20)
      #expect(reservation.step == 1 << 20)
      #expect(reservation.end(for: 1) == 1 << 20)
      #expect(reservation.end(for: 1 << 20) == 1 << 20)
      #expect(reservation.end(for: (1 << 20) + 1) == 2 << 20)
      let small = JournalSpaceReservation.forFiles(of: 192 << 10)
      #expect(small.step == 192 << 10)
      #expect(small.end(for: 100) == 192 << 10)
      #expect(small.end(for: (192 << 10) + 30) == (192 << 10) + 30, "a record past the limit")
      #expect(JournalSpaceReservation.none.end(for: 5) == 5)
    }
  }

  /// A disk that fills while a journal reserves space ahead: a real 1 MiB tmpfs.
  @Suite(.needsSmallTmpfs)
  struct JournalSpaceReservationFullDiskTests {
    /// The full disk is met by the reservation, before any byte of the chunk that does not
    /// fit is written: `flush()` and `finish` throw `ENOSPC` naming `fallocate` and the file,
    /// and the file ends after a whole record (no torn record), holding every action flushed.
    @Test(arguments: allBackends)
    func aFullDiskFailsTheReservationNotARecord(backend: IOBackend.Preference) async throws {
      try await SmallTmpfs.with { disk in
        try await withEngine(backend) { engine in
          let path = disk.file("full")
          let recorder = try ActionJournal<Ledger.Action>.recording(
            to: path, configuration: JournalConfiguration(bufferBytes: 16 << 10), engine: engine)
          let store = Store(initialState: Ledger.State(), instrumentation: recorder) { Ledger() }
          // 1 MiB holds fewer than 200,000 records of over 16 bytes: the disk fills first.
          let (flushed, enqueued, failure) = await JournalSpaceReservationTests.record(
            200_000, into: store, recorder: recorder)
          let error = failure as? IOError
          #expect(error?.errno == ENOSPC, "\(String(describing: failure))")
          #expect(error?.operation == "fallocate", "\(String(describing: failure))")
          #expect("\(String(describing: error))".contains("\(path).0.journal"))
          await #expect(throws: IOError.self) {
            try await recorder.finish(finalState: await store.state)
          }

          let contents = try await ActionJournal<Ledger.Action>(path: path, engine: engine).load()
          #expect(contents.actions.count >= flushed)
          #expect(contents.actions.count < enqueued)
          JournalSpaceReservationTests.expectInOrder(contents.actions)
          let why = contents.unverifiable?.description ?? ""
          #expect(why.contains("cut off: the file ends after a whole record"), "\(why)")
        }
      }
    }
  }
}

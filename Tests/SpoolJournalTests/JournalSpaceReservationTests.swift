#if canImport(Glibc)
  import Glibc
#endif
import Spool
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
        let configuration = JournalConfiguration(maxFileBytes: 256 << 10, bufferBytes: 16 << 10)
        let recorder = try ActionJournal<Ledger.Action>.recording(
          to: path, configuration: configuration, engine: engine)
        let store = Store(initialState: Ledger.State(), instrumentation: recorder) { Ledger() }
        let (_, _, failure) = await Self.record(60_000, into: store, recorder: recorder)
        #expect(failure == nil, "\(String(describing: failure))")
        try await recorder.finish(finalState: await store.state)
        let indices = try JournalFiles.indices(of: path)
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

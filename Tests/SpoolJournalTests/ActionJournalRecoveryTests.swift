#if canImport(Glibc)
  import Glibc
#endif
import Foundation
import SpoolCore
@testable import SpoolIO
@testable import SpoolJournal
import Testing

extension SpoolJournalTests {
  /// `ActionJournal.recover(initialState:reducer:)` and `JournalRecovery.continueRecording()`:
  /// continuing a journal after a clean stop, a cut tail and a kill, and recovering nothing.
  @Suite struct ActionJournalRecoveryTests {
    /// A Ledger journal's recovery at `path`.
    func recoverLedger(
      _ path: String, engine: IOEngine
    ) async throws -> JournalRecovery<Ledger.State, Ledger.Action> {
      try await ActionJournal<Ledger.Action>(path: path, engine: engine)
        .recover(initialState: Ledger.State()) { Ledger() }
    }

    /// Runs a store from `recovery`'s state, recording into the continued journal, enqueues
    /// `actions`, and finishes the journal with the final state, which it returns.
    func continueLedger(
      _ recovery: JournalRecovery<Ledger.State, Ledger.Action>, with actions: [Ledger.Action],
      configuration: JournalConfiguration = JournalConfiguration()
    ) async throws -> Ledger.State {
      let recorder = try recovery.continueRecording(configuration: configuration)
      let store = Store(initialState: recovery.state, instrumentation: recorder) { Ledger() }
      for action in actions { store.enqueue(action) }
      await store.finish()
      let state = await store.state
      try await recorder.finish(finalState: state)
      return state
    }

    /// Two clean runs and a third continue one journal: each recovery verifies and equals the
    /// state the actions lead to from the start; each run wrote new files after the last.
    @Test(arguments: allBackends)
    func continuesAfterACleanStop(backend: IOBackend.Preference) async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await withEngine(backend) { engine in
        let path = directory.file("clean")
        let first = (0..<500).map { Ledger.Action.add($0) }
        let second = (500..<800).map { Ledger.Action.add($0) } + [.note("second run")]
        let third = (800..<900).map { Ledger.Action.add($0) }
        let (_, firstState) = try await recordLedger(first, to: path, engine: engine)

        let recovered = try await recoverLedger(path, engine: engine)
        #expect(recovered.state == firstState)
        #expect(recovered.actions == 500)
        #expect(recovered.snapshotFile == nil)
        #expect(recovered.verification == .verified(checksum: try StateChecksum.of(firstState)))
        let firstFile = fileBytes(ActionJournal<Ledger.Action>(path: path).file(0))

        let secondState = try await continueLedger(recovered, with: second)
        let again = try await recoverLedger(path, engine: engine)
        #expect(again.state == secondState)
        #expect(again.state == reduced(first + second))
        #expect(again.actions == 801)
        #expect(again.verification == .verified(checksum: try StateChecksum.of(secondState)))
        // The first run's file is untouched: the second run wrote file 1.
        #expect(fileBytes(ActionJournal<Ledger.Action>(path: path).file(0)) == firstFile)

        let thirdState = try await continueLedger(again, with: third)
        let last = try await recoverLedger(path, engine: engine)
        #expect(last.state == thirdState)
        #expect(last.state == reduced(first + second + third))
        #expect(last.files == 3)
        #expect(directory.entries().sorted() == ["clean.0.journal", "clean.1.journal",
          "clean.2.journal", "clean.lock"])
        // `load` and `replay` read every run, in order.
        let contents = try await ActionJournal<Ledger.Action>(path: path, engine: engine).load()
        #expect(contents.actions == first + second + third)
        #expect(contents.stateChecksum == (try StateChecksum.of(thirdState)))
        let result = try await ActionJournal<Ledger.Action>(path: path, engine: engine)
          .replay(into: replayStore())
        #expect(result.verification == .verified(checksum: try StateChecksum.of(thirdState)))
      }
    }

    /// A journal cut inside its last record (a torn tail): recovery stops at the last whole
    /// record and says where the cut is, and cuts the torn record off the file (its whole
    /// records stay byte for byte); the continued run goes in a new file, and the journal then
    /// recovers and verifies through both runs.
    @Test(arguments: allBackends)
    func continuesAfterACutTail(backend: IOBackend.Preference) async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await withEngine(backend) { engine in
        let path = directory.file("cut")
        let first = (0..<200).map { Ledger.Action.add($0) }
        _ = try await recordLedger(first, to: path, engine: engine)
        let file = ActionJournal<Ledger.Action>(path: path).file(0)
        // Cut the end record and the last action's record in half.
        var bytes = fileBytes(file)
        bytes.removeLast(endRecordSize(actions: 200, dropped: 0) + 4)
        writeFileBytes(file, bytes)

        let recovered = try await recoverLedger(path, engine: engine)
        #expect(recovered.state == reduced(Array(first.prefix(199))))
        guard case .unverified(let cut) = recovered.verification else {
          Issue.record("a cut journal verified")
          return
        }
        #expect(cut.code == .cutOff)
        #expect(cut.file == file)

        // The torn record's bytes are gone, and only they: the whole records replay below.
        let kept = fileBytes(file)
        #expect(bytes.starts(with: kept))
        #expect(kept.count < bytes.count)

        let second = (1_000..<1_100).map { Ledger.Action.add($0) }
        let state = try await continueLedger(recovered, with: second)
        #expect(fileBytes(file) == kept)
        let again = try await recoverLedger(path, engine: engine)
        #expect(again.state == state)
        #expect(again.state == reduced(Array(first.prefix(199)) + second))
        #expect(again.verification == .verified(checksum: try StateChecksum.of(state)))
      }
    }

    /// A continued run whose first file's header was cut short (the disk filled as it was
    /// written): recovery stops before it, as cut off, and the next run goes after it.
    @Test func aHeaderCutShortIsACutNotCorruption() async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      let path = directory.file("header")
      let first = (0..<50).map { Ledger.Action.add($0) }
      _ = try await recordLedger(first, to: path, engine: .shared)
      let recovered = try await recoverLedger(path, engine: .shared)
      _ = try await continueLedger(recovered, with: [.add(1_000)])
      let file1 = ActionJournal<Ledger.Action>(path: path).file(1)
      writeFileBytes(file1, Array(fileBytes(file1).prefix(20)))

      let cut = try await recoverLedger(path, engine: .shared)
      #expect(cut.state == reduced(first))
      guard case .unverified(let why) = cut.verification else {
        Issue.record("a journal cut in a header verified")
        return
      }
      #expect(why.code == .cutOff)
      #expect(why.file == file1)
      let state = try await continueLedger(cut, with: [.add(2_000)])
      let again = try await recoverLedger(path, engine: .shared)
      #expect(again.state == state)
      #expect(again.state == reduced(first + [.add(2_000)]))
      #expect(again.verification == .verified(checksum: try StateChecksum.of(state)))
    }

    /// `kill -9` of a process recording with durable acknowledgements, then recovery and a
    /// continued run: every acknowledged action is in the recovered state, and the continued
    /// journal recovers and verifies.
    @Test func continuesAfterAKill() async throws {
      for round in 0..<3 {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let child = try KillChild(folder: directory.path)
        let acked = try await child.waitForAcknowledgements(atLeast: 1)
        #expect(acked, "round \(round): the child acknowledged nothing within 60 s")
        try await Task.sleep(for: .milliseconds(Int.random(in: 0...200)))
        child.kill()
        let acknowledged = directory.linesOf("acks").compactMap(Int.init)
        let path = directory.file("journal")
        let contents = try await ActionJournal<Ledger.Action>(path: path).load()
        let recovered = try await recoverLedger(path, engine: .shared)
        #expect(recovered.state == reduced(contents.actions))
        #expect(recovered.state.count >= acknowledged.count)
        if case .verified = recovered.verification {
          Issue.record("round \(round): a killed recording verified")
        }
        let more = (0..<50).map { Ledger.Action.add(-$0) }
        let state = try await continueLedger(recovered, with: more)
        let again = try await recoverLedger(path, engine: .shared)
        #expect(again.state == state)
        #expect(again.state == reduced(contents.actions + more))
        #expect(again.verification == .verified(checksum: try StateChecksum.of(state)))
      }
    }

    /// No journal at all: the initial state, nothing replayed, unverified; continuing it
    /// starts a new journal at file 0.
    @Test func recoversAMissingJournal() async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      let path = directory.file("missing")
      let recovered = try await recoverLedger(path, engine: .shared)
      #expect(recovered.state == Ledger.State())
      #expect(recovered.actions == 0)
      #expect(recovered.files == 0)
      guard case .unverified(let why) = recovered.verification else {
        Issue.record("a missing journal verified")
        return
      }
      #expect(why.underlyingError?.errno == ENOENT)
      let state = try await continueLedger(recovered, with: [.add(1)])
      #expect(directory.entries() == ["missing.0.journal", "missing.lock"])
      #expect(try await recoverLedger(path, engine: .shared).state == state)
      // A missing folder is a missing journal too.
      let nowhere = try await recoverLedger(directory.file("none/journal"), engine: .shared)
      #expect(nowhere.state == Ledger.State())
    }

    /// An empty first file (the recorder was killed before it wrote a header): the initial
    /// state, unverified as cut off; the continued run goes to file 1, and recovers.
    @Test func recoversAnEmptyJournal() async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      let path = directory.file("empty")
      writeFileBytes(ActionJournal<Ledger.Action>(path: path).file(0), [])
      let recovered = try await recoverLedger(path, engine: .shared)
      #expect(recovered.state == Ledger.State())
      guard case .unverified(let why) = recovered.verification else {
        Issue.record("an empty journal verified")
        return
      }
      #expect(why.code == .cutOff)
      let state = try await continueLedger(recovered, with: [.add(7), .note("x")])
      #expect(directory.entries().sorted() == ["empty.0.journal", "empty.1.journal", "empty.lock"])
      let again = try await recoverLedger(path, engine: .shared)
      #expect(again.state == state)
      #expect(again.verification == .verified(checksum: try StateChecksum.of(state)))
    }

    /// Recovery in a cancelled task (a journal with a snapshot, so that it reads headers
    /// first) either completes or throws a `JournalError` with `ECANCELED`: never another
    /// error, never a crash.
    @Test func aCancelledRecoveryEndsWithAJournalError() async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      let path = directory.file("cancelled")
      let recorder = try ActionJournal<Ledger.Action>.recording(to: path)
      let store = Store(initialState: Ledger.State(), instrumentation: recorder) { Ledger() }
      for value in 0..<100 { store.enqueue(.add(value)) }
      await store.finish()
      try await recorder.snapshot(of: store)
      store.enqueue(.add(1))
      await store.finish()
      let expected = await store.state
      try await recorder.finish(finalState: expected)
      let journal = ActionJournal<Ledger.Action>(path: path)
      let task = Task { () async -> Result<Ledger.State, JournalError> in
        withUnsafeCurrentTask { $0?.cancel() }
        do throws(JournalError) {
          let recovery = try await journal.recover(initialState: Ledger.State()) { Ledger() }
          return .success(recovery.state)
        } catch {
          return .failure(error)
        }
      }
      switch await task.value {
      case .success(let state): #expect(state == expected)
      case .failure(let error): #expect(error.underlyingError?.errno == ECANCELED, "\(error)")
      }
    }

    /// A file of another recording placed after a journal's last file is refused, naming it:
    /// a continuation must name the run before it.
    @Test func aForeignFileAfterTheLastIsRefused() async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      let path = directory.file("journal")
      let other = directory.file("other")
      _ = try await recordLedger([.add(1)], to: path, engine: .shared)
      _ = try await recordLedger([.add(2)], to: other, engine: .shared)
      var bytes = fileBytes(ActionJournal<Ledger.Action>(path: other).file(0))
      let header = JournalFormat.header(
        index: 1, runID: 99, baseTime: 0, actionType: JournalFormat.typeName(Ledger.Action.self),
        encoding: JournalActionEncoding.of(Ledger.Action.self), previousRunID: 12_345)
      bytes.replaceSubrange(0..<header.count, with: header)
      let file1 = ActionJournal<Ledger.Action>(path: path).file(1)
      writeFileBytes(file1, bytes)
      await #expect(throws: JournalError.self) {
        try await recoverLedger(path, engine: .shared)
      }
      do {
        _ = try await recoverLedger(path, engine: .shared)
      } catch let error as JournalError {
        #expect(error.code == .foreignFile)
        #expect(error.file == file1)
      }
    }
  }
}

/// The Ledger state that `actions` lead to from the initial state, effects discarded.
func reduced(_ actions: [Ledger.Action]) -> Ledger.State {
  var state = Ledger.State()
  for action in actions { _ = Ledger().reduce(into: &state, action: action) }
  return state
}

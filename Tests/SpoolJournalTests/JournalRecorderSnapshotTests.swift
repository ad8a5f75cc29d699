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
  /// `JournalRecorder.snapshot(of:compacting:)`: snapshots, compaction, the crashes between
  /// them, damaged snapshots, and restarting effects after a recovery.
  @Suite struct JournalRecorderSnapshotTests {
    let small = JournalConfiguration(maxFileBytes: 4_096, maxFiles: 100, bufferBytes: 4_096)

    func recoverLedger(_ path: String) async throws -> JournalRecovery<Ledger.State, Ledger.Action>
    {
      try await ActionJournal<Ledger.Action>(path: path).recover(initialState: Ledger.State()) {
        Ledger()
      }
    }

    /// Records `before`, snapshots, records `after`, and finishes; returns the snapshot's
    /// summary and the final state.
    func recordWithSnapshot(
      _ before: [Ledger.Action], _ after: [Ledger.Action], to path: String,
      compacting: Bool, finishing: Bool = true
    ) async throws -> (snapshot: JournalSnapshotSummary, state: Ledger.State) {
      let recorder = try ActionJournal<Ledger.Action>.recording(to: path, configuration: small)
      let store = Store(initialState: Ledger.State(), instrumentation: recorder) { Ledger() }
      for action in before { store.enqueue(action) }
      await store.finish()
      let snapshot = try await recorder.snapshot(of: store, compacting: compacting)
      for action in after { store.enqueue(action) }
      await store.finish()
      let state = await store.state
      if finishing {
        try await recorder.finish(finalState: state)
      } else {
        try await recorder.flush()
      }
      return (snapshot, state)
    }

    /// A snapshot with compaction: the files before it are gone, `load` refuses the compacted
    /// journal by name, and recovery from the snapshot gives the state that a full replay of
    /// the same actions gives, verified, reading only the files from the snapshot on.
    @Test func snapshotAndCompactionRecoverTheFullReplaysState() async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      let path = directory.file("compacted")
      let before = (0..<2_000).map { Ledger.Action.add($0) } + [.note("before")]
      let after = (0..<300).map { Ledger.Action.add(-$0) }
      let (snapshot, state) = try await recordWithSnapshot(
        before, after, to: path, compacting: true)
      #expect(snapshot.removedFiles > 5)
      let journal = ActionJournal<Ledger.Action>(path: path)
      #expect(!FileManager.default.fileExists(atPath: journal.file(0)))
      #expect(FileManager.default.fileExists(atPath: snapshot.file))

      let recovered = try await recoverLedger(path)
      #expect(recovered.state == state)
      #expect(recovered.state == reduced(before + after))
      #expect(recovered.snapshotFile == snapshot.file)
      #expect(recovered.actions == 300)
      #expect(recovered.verification == .verified(checksum: try StateChecksum.of(state)))

      do {
        _ = try await journal.load()
        Issue.record("a compacted journal loaded from file 0")
      } catch {
        #expect(error.code == .missingFile)
        #expect(error.file == journal.file(0))
      }
    }

    /// A snapshot without compaction (what a crash between the snapshot and the compaction
    /// leaves), and a compaction that removed only the lowest file: recovery starts at the
    /// snapshot and gives the full replay's state, which `replay` from file 0 verifies too.
    @Test func aCrashBetweenSnapshotAndCompactionRecovers() async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      let path = directory.file("uncompacted")
      let before = (0..<2_000).map { Ledger.Action.add($0) }
      let after = (0..<300).map { Ledger.Action.add(-$0) }
      let (snapshot, state) = try await recordWithSnapshot(
        before, after, to: path, compacting: false)
      #expect(snapshot.removedFiles == 0)
      let journal = ActionJournal<Ledger.Action>(path: path)
      let replayed = try await journal.replay(into: replayStore())
      #expect(replayed.verification == .verified(checksum: try StateChecksum.of(state)))

      let recovered = try await recoverLedger(path)
      #expect(recovered.state == state)
      #expect(recovered.snapshotFile == snapshot.file)
      #expect(recovered.actions == 300)

      // A compaction cut short after its first unlink.
      try FileManager.default.removeItem(atPath: journal.file(0))
      let partial = try await recoverLedger(path)
      #expect(partial.state == state)
      #expect(partial.verification == .verified(checksum: try StateChecksum.of(state)))
    }

    /// A crash while the snapshot was written (its file holds the header and part of the
    /// snapshot record): recovery falls back to file 0 and replays every action, unverified.
    @Test func aSnapshotCutOffWhileWrittenFallsBack() async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      let path = directory.file("torn")
      let before = (0..<2_000).map { Ledger.Action.add($0) }
      let (snapshot, _) = try await recordWithSnapshot(
        before, [], to: path, compacting: false, finishing: false)
      let bytes = fileBytes(snapshot.file)
      let cut = journalHeaderSize(Ledger.Action.self) + JournalFormat.recordOverhead + 3
      writeFileBytes(snapshot.file, Array(bytes.prefix(cut)))
      let recovered = try await recoverLedger(path)
      #expect(recovered.state == reduced(before))
      #expect(recovered.snapshotFile == nil)
      guard case .unverified(let why) = recovered.verification else {
        Issue.record("a torn journal verified")
        return
      }
      #expect(why.code == .cutOff)
      #expect(why.file == snapshot.file)
    }

    /// A damaged byte in the snapshot's state: a corrupt record naming the snapshot's file and
    /// the record's offset; a snapshot of another state type: an undecodable state.
    @Test func aDamagedSnapshotIsNamed() async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      let path = directory.file("damaged")
      let before = (0..<2_000).map { Ledger.Action.add($0) } + [.note("hello")]
      let (snapshot, _) = try await recordWithSnapshot(
        before, [.add(1)], to: path, compacting: true)

      struct Other: Codable, Sendable { var name: String }
      do {
        _ = try await ActionJournal<Ledger.Action>(path: path).recover(initialState: Other(
          name: "")) { Reduce<Other, Ledger.Action> { _, _ in .none } }
        Issue.record("a snapshot decoded as another state type")
      } catch {
        #expect(error.code == .undecodableState)
        #expect(error.file == snapshot.file)
      }

      var bytes = fileBytes(snapshot.file)
      let recordOffset = journalHeaderSize(Ledger.Action.self)
      bytes[recordOffset + JournalFormat.recordOverhead + 20] ^= 0x10
      writeFileBytes(snapshot.file, bytes)
      do {
        _ = try await recoverLedger(path)
        Issue.record("a damaged snapshot recovered")
      } catch let error as JournalError {
        #expect(error.code == .corruptRecord)
        #expect(error.file == snapshot.file)
        #expect(error.offset == recordOffset)
        #expect("\(error)".hasPrefix("journal \(snapshot.file), byte \(recordOffset): corrupt"))
      }
    }

    /// Snapshots while producers keep enqueueing: each snapshot holds exactly the actions
    /// before it, so recovery from the newest gives the final state, verified.
    @Test func snapshotsOfABusyStoreMatchTheJournal() async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      let path = directory.file("busy")
      let recorder = try ActionJournal<Ledger.Action>.recording(to: path, configuration: small)
      let store = Store(initialState: Ledger.State(), instrumentation: recorder) { Ledger() }
      try await withThrowingTaskGroup(of: Void.self) { group in
        for producer in 0..<2 {
          group.addTask {
            for index in 0..<5_000 {
              store.enqueue(.add(producer * 100_000 + index))
              if index % 100 == 0 { await Task.yield() }
            }
          }
        }
        group.addTask {
          for _ in 0..<5 { try await recorder.snapshot(of: store) }
        }
        try await group.waitForAll()
      }
      await store.finish()
      let state = await store.state
      try await recorder.finish(finalState: state)
      let recovered = try await recoverLedger(path)
      #expect(recovered.state == state)
      #expect(recovered.verification == .verified(checksum: try StateChecksum.of(state)))
    }

    /// The documented way to restart long-lived effects: recovery discards effects, so the
    /// armed reminder's timer is not running; the app sends `.recovered`, which re-arms it;
    /// the reminder fires, and a later recovery replays `.recovered` without running it.
    @Test func aRecoveredActionRestartsLongLivedEffects() async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      let path = directory.file("reminder")
      let journal = ActionJournal<Reminder.Action>(path: path)
      // First run: armed, then the process "stops" (the timer of an hour never fires).
      let recorder = try ActionJournal<Reminder.Action>.recording(to: path)
      let store = Store(initialState: Reminder.State(), instrumentation: recorder) {
        Reminder(clock: ContinuousClock())
      }
      await store.send(.arm)
      #expect(store.runningEffectCount == 1)
      try await recorder.waitUntilDurable()
      await store.shutdown()
      try await recorder.finish()

      let recovered = try await journal.recover(initialState: Reminder.State()) {
        Reminder(clock: ContinuousClock())
      }
      #expect(recovered.state == Reminder.State(armed: true, fired: false))
      let continued = try recovered.continueRecording()
      let restarted = Store(initialState: recovered.state, instrumentation: continued) {
        Reminder(clock: ImmediateClock())
      }
      await restarted.send(.recovered)
      await restarted.finish()
      let state = await restarted.state
      #expect(state == Reminder.State(armed: false, fired: true))
      try await continued.finish(finalState: state)

      let again = try await journal.recover(initialState: Reminder.State()) {
        Reminder(clock: ContinuousClock())
      }
      #expect(again.state == state)
      #expect(again.actions == 3)
      #expect(again.verification == .verified(checksum: try StateChecksum.of(state)))
    }
  }
}

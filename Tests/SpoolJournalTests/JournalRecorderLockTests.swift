#if canImport(Glibc)
  import Glibc
#endif
import Foundation
import SpoolCore
@testable import SpoolIO
@testable import SpoolJournal
import Testing

extension SpoolJournalTests {
  /// One `JournalRecorder` per journal at a time (its lock file, `path.lock`), in this process
  /// or another, released by `finish`, by the recorder's release, and by the kernel when the
  /// process that held it dies.
  @Suite struct JournalRecorderLockTests {
    typealias Journal = ActionJournal<Ledger.Action>

    /// The variable of the child that records a journal until it is killed.
    static let childVariable = "SPOOL_JOURNAL_RECORDER_LOCK_CHILD"

    /// A recording, and a recovery's continuation, of a journal that a recorder records are
    /// refused with `inUse`, naming the lock file, and touch no file (the first recorder's
    /// file is not truncated). Once the first recorder finished, the journal continues.
    @Test func aSecondRecorderWhileOneRecordsIsRefused() async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      let path = directory.file("cart")
      let first = try Journal.recording(to: path)
      let store = Store(initialState: Ledger.State(), instrumentation: first) { Ledger() }
      await store.send(.add(7))
      try await first.waitUntilDurable()
      let filesBefore = directory.entries()
      let bytesBefore = fileBytes("\(path).0.journal")
      #expect(!bytesBefore.isEmpty)

      let error = #expect(throws: JournalError.self) { _ = try Journal.recording(to: path) }
      #expect(error?.code == .inUse)
      #expect(error?.file == "\(path).lock")
      let recovery = try await Journal(path: path).recover(initialState: Ledger.State()) {
        Ledger()
      }
      #expect(recovery.state.total == 7, "a recovery reads while the recorder records")
      let continuing = #expect(throws: JournalError.self) { _ = try recovery.continueRecording() }
      #expect(continuing?.code == .inUse)
      #expect(directory.entries() == filesBefore)
      #expect(fileBytes("\(path).0.journal") == bytesBefore)

      try await first.finish(finalState: await store.state)
      let again = try await Journal(path: path).recover(initialState: Ledger.State()) { Ledger() }
      let second = try again.continueRecording()
      let next = Store(initialState: again.state, instrumentation: second) { Ledger() }
      await next.send(.add(3))
      try await second.finish(finalState: await next.state)
      let last = try await Journal(path: path).recover(initialState: Ledger.State()) { Ledger() }
      #expect(last.state.total == 10)
      if case .verified = last.verification {} else {
        Issue.record("not verified: \(last.verification)")
      }
    }

    /// A recorder released without `finish` (its store went away) releases the lock with it.
    ///
    /// The release is not at the closing brace: a flush in progress or the store's queue can
    /// hold the last reference for a moment, so the test waits (bounded) for the lock to free.
    @Test func aReleasedRecorderReleasesTheLock() async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      let path = directory.file("dropped")
      do {
        let recorder = try Journal.recording(to: path)
        let store = Store(initialState: Ledger.State(), instrumentation: recorder) { Ledger() }
        await store.send(.add(1))
        try await recorder.waitUntilDurable()
      }
      var freed: JournalLock?
      for _ in 0..<3_000 where freed == nil {
        freed = try? JournalLock(path: path, holder: "test")
        if freed == nil { try await Task.sleep(for: .milliseconds(10)) }
      }
      #expect(freed != nil, "the released recorder still holds \(path).lock")
      freed?.release()
      let recovery = try await Journal(path: path).recover(initialState: Ledger.State()) {
        Ledger()
      }
      #expect(recovery.state.total == 1)
      let recorder = try recovery.continueRecording()
      try await recorder.finish(finalState: recovery.state)
    }

    /// A journal recorded by another process is refused; once that process is killed with
    /// SIGKILL, the kernel has released the lock: the journal recovers to what the child made
    /// durable and continues.
    @Test func aJournalRecordedByAKilledProcessContinuesOnceItDied() async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      let path = directory.file("journal")
      let child = try KillChild(
        folder: directory.path, variable: Self.childVariable,
        filter: "recordingChildWaitsUntilKilled")
      defer { if child.process.isRunning { child.kill() } }
      #expect(try await child.waitForAcknowledgements(atLeast: 1))

      let error = #expect(throws: JournalError.self) { _ = try Journal.recording(to: path) }
      #expect(error?.code == .inUse)
      #expect(error?.file == "\(path).lock")

      child.kill()
      let recovery = try await Journal(path: path).recover(initialState: Ledger.State()) {
        Ledger()
      }
      #expect(recovery.state.total == 5)
      let recorder = try recovery.continueRecording()
      let store = Store(initialState: recovery.state, instrumentation: recorder) { Ledger() }
      await store.send(.add(2))
      try await recorder.finish(finalState: await store.state)
      let last = try await Journal(path: path).recover(initialState: Ledger.State()) { Ledger() }
      #expect(last.state.total == 7)
    }

    /// The child of `aJournalRecordedByAKilledProcessContinuesOnceItDied`: records one durable
    /// action, says so in `acks`, and waits (at most two minutes) to be killed.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[Self.childVariable] != nil))
    func recordingChildWaitsUntilKilled() async throws {
      let folder = try #require(ProcessInfo.processInfo.environment[Self.childVariable])
      let recorder = try Journal.recording(to: "\(folder)/journal")
      let store = Store(initialState: Ledger.State(), instrumentation: recorder) { Ledger() }
      await store.send(.add(5))
      try await recorder.waitUntilDurable()
      try Data("open\n".utf8).write(to: URL(fileURLWithPath: "\(folder)/acks"))
      try await Task.sleep(for: .seconds(120))
      try await recorder.finish(finalState: await store.state)
    }
  }
}

#if canImport(Glibc)
  import Glibc
#endif
import Foundation
import SpoolCore
@testable import SpoolJournal
import Testing

extension SpoolJournalTests {
  /// One open `SharedJournal` per journal at a time (its lock file), the temporary files of a
  /// run that died removed when the journal is opened next, and no compaction after `close()`.
  @Suite struct SharedJournalLockTests {
    typealias Journal = SharedJournal<Int, Ledger.State, Ledger.Action>

    /// The variable of the child that holds a journal open until it is killed.
    static let childVariable = "SPOOL_SHARED_JOURNAL_LOCK_CHILD"

    /// A second open of a journal that is open is refused with `inUse`, naming the lock file,
    /// and writes nothing; once the first is closed, the journal opens and has every action.
    @Test func aSecondOpenWhileOpenIsRefused() async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      let path = directory.file("shared")
      let first = try await Journal.open(path: path)
      let store = try await first.makeStore(for: 1, initialState: Ledger.State()) { Ledger() }
      await store.send(.add(7))
      try await first.waitUntilDurable()
      let filesBefore = directory.entries()

      let error = await #expect(throws: JournalError.self) {
        _ = try await Journal.open(path: path)
      }
      #expect(error?.code == .inUse)
      #expect(error?.file == "\(path).lock")
      #expect(directory.entries() == filesBefore)

      try await first.close()
      let second = try await Journal.open(path: path)
      let recovery = try await second.recover(for: 1, initialState: Ledger.State()) { Ledger() }
      #expect(recovery.state.total == 7)
      try await second.close()
    }

    /// A journal held open by another process is refused; once that process is killed with
    /// SIGKILL, the kernel has released the lock and the journal opens, with what the child
    /// recorded.
    @Test func aJournalOpenInAKilledProcessOpensOnceItDied() async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      let child = try KillChild(
        folder: directory.path, variable: Self.childVariable,
        filter: "lockHoldingChildWaitsUntilKilled")
      defer { if child.process.isRunning { child.kill() } }
      #expect(try await child.waitForAcknowledgements(atLeast: 1))

      let error = await #expect(throws: JournalError.self) {
        _ = try await Journal.open(path: directory.file("shared"))
      }
      #expect(error?.code == .inUse)

      child.kill()
      let journal = try await Journal.open(path: directory.file("shared"))
      let recovery = try await journal.recover(for: 3, initialState: Ledger.State()) { Ledger() }
      #expect(recovery.state.total == 5)
      try await journal.close()
    }

    /// The child of `aJournalOpenInAKilledProcessOpensOnceItDied`: opens the journal, records
    /// one durable action, says so in `acks`, and waits (at most two minutes) to be killed.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[Self.childVariable] != nil))
    func lockHoldingChildWaitsUntilKilled() async throws {
      let folder = try #require(ProcessInfo.processInfo.environment[Self.childVariable])
      let journal = try await Journal.open(path: "\(folder)/shared")
      let store = try await journal.makeStore(for: 3, initialState: Ledger.State()) { Ledger() }
      await store.send(.add(5))
      try await journal.waitUntilDurable()
      try Data("open\n".utf8).write(to: URL(fileURLWithPath: "\(folder)/acks"))
      try await Task.sleep(for: .seconds(120))
      try await journal.close()
    }

    /// Temporary files of the journal's segments and indexes (what a compaction or an index
    /// write leaves when its process dies before the rename) are removed by the next open and
    /// counted; files of other journals, and names that only look alike, stay.
    @Test func openRemovesTheTemporariesADeadRunLeft() async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      let path = directory.file("shared")
      let journal = try await Journal.open(path: path)
      let store = try await journal.makeStore(for: 1, initialState: Ledger.State()) { Ledger() }
      await store.send(.add(2))
      try await journal.close()

      let leftovers = [".shared.4.journal.spool-123-456", ".shared.4.index.spool-99-1"]
      let others = [
        ".other.4.journal.spool-123-456", ".shared.x.journal.spool-1-2", ".shared.4.journal",
        "shared.4.journal.spool-1-2", ".shared.4.snapshot.spool-1-2",
      ]
      for name in leftovers + others {
        #expect(FileManager.default.createFile(atPath: directory.file(name), contents: Data([1])))
      }

      let reopened = try await Journal.open(path: path)
      #expect(reopened.opening.removedTemporaries == leftovers.count)
      let entries = Set(directory.entries())
      for name in leftovers { #expect(!entries.contains(name)) }
      for name in others { #expect(entries.contains(name)) }
      let recovery = try await reopened.recover(for: 1, initialState: Ledger.State()) { Ledger() }
      #expect(recovery.state.total == 2)
      try await reopened.close()
    }

    /// `compact()` after `close()` is refused with `storeBusy` and removes nothing: the lock is
    /// gone by then, and another run may have the journal open.
    @Test func compactAfterCloseIsRefused() async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      let path = directory.file("shared")
      let journal = try await Journal.open(
        path: path,
        configuration: JournalConfiguration(
          maxFileBytes: 4_096, bufferBytes: 4_096, flushInterval: .milliseconds(5)))
      let store = try await journal.makeStore(for: 1, initialState: Ledger.State()) { Ledger() }
      for value in 0..<400 { await store.send(.add(value)) }
      #expect(try await journal.evict(1, finalState: await store.state))
      try await journal.close()
      let filesBefore = directory.entries()

      let error = await #expect(throws: JournalError.self) { try await journal.compact() }
      #expect(error?.code == .storeBusy)
      #expect(directory.entries() == filesBefore)
    }
  }
}

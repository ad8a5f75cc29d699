#if canImport(Glibc)
  import Glibc
#endif
import SpoolCore
@testable import SpoolIO
@testable import SpoolJournal
import Testing

extension SpoolJournalTests {
  /// A disk that fills while a journal is recorded: a real 1 MiB tmpfs.
  @Suite(.needsSmallTmpfs)
  struct JournalRecorderFullDiskTests {
    /// Recording until the disk is full: the write fails with ENOSPC, and the journal still
    /// loads every whole record up to where the disk filled, as cut off (a torn tail, not
    /// corruption), including every action a successful `flush()` reported written.
    @Test(arguments: allBackends)
    func aFullDiskLeavesAJournalThatLoadsUpToItsLastWholeRecord(
      backend: IOBackend.Preference
    ) async throws {
      try await SmallTmpfs.with { disk in
        try await withEngine(backend) { engine in
          let path = disk.file("full")
          let recorder = try ActionJournal<Ledger.Action>.recording(
            to: path, configuration: JournalConfiguration(bufferBytes: 16 << 10), engine: engine)
          let store = Store(initialState: Ledger.State(), instrumentation: recorder) { Ledger() }
          // 1 MiB holds fewer than 200,000 records of over 16 bytes: the disk fills first.
          let (flushed, enqueued, failure) = await Ledger.fill(
            store, upTo: 200_000, batch: 1_000
          ) { try await recorder.flush() }
          #expect((failure as? IOError)?.errno == ENOSPC, "\(String(describing: failure))")
          await #expect(throws: IOError.self) {
            try await recorder.finish(finalState: await store.state)
          }

          let contents = try await ActionJournal<Ledger.Action>(path: path, engine: engine).load()
          #expect(contents.actions.count >= flushed)
          #expect(contents.actions.count < enqueued)
          for (index, action) in contents.actions.enumerated() {
            guard action == .add(index) else {
              Issue.record("action \(index) is \(action)")
              break
            }
          }
          let why = contents.unverifiable?.description ?? ""
          #expect(why.contains("cut off"), "\(why)")
          #expect(why.hasPrefix("journal \(path).0.journal, byte "), "\(why)")
        }
      }
    }
  }
}

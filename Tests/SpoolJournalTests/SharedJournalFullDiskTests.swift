#if canImport(Glibc)
  import Glibc
#endif
import SpoolCore
@testable import SpoolIO
@testable import SpoolJournal
import Testing

extension SpoolJournalTests {
  /// A disk that fills while many stores record into one ``SharedJournal``: a real 1 MiB tmpfs.
  @Suite(.needsSmallTmpfs)
  struct SharedJournalFullDiskTests {
    typealias Journal = SharedJournal<Int, Ledger.State, Ledger.Action>

    /// What one producer did before the disk filled.
    struct Outcome: Sendable {
      var producer: Int
      /// Notes sent, and notes that `waitUntilDurable()` reported durable.
      var sent = 0
      var durable = 0
      var failure: (any Error)?
    }

    /// Eight stores record notes into one shared journal, each acknowledging every 16th
    /// through `waitUntilDurable()`, over several segments, until the disk is full: every
    /// producer's waiter gets the `ENOSPC` `IOError` naming the segment; `close()` throws it
    /// too. Opened again on the full disk, the journal recovers each store to a prefix of its
    /// notes, in order, holding every note reported durable, and no note after the failure.
    @Test(arguments: allBackends)
    func aFullDiskLosesNoDurableActionOfAnyStore(backend: IOBackend.Preference) async throws {
      try await SmallTmpfs.with { disk in
        try await withEngine(backend) { engine in
          let path = disk.file("shared")
          let configuration = JournalConfiguration(
            maxFileBytes: 192 << 10, bufferBytes: 8 << 10, flushInterval: .milliseconds(5))
          let journal = try await Journal.open(
            path: path, configuration: configuration, engine: engine)
          let outcomes = try await withThrowingTaskGroup(of: Outcome.self) { group in
            for producer in 0..<8 {
              let store = try await journal.makeStore(for: producer, initialState: Ledger.State())
              { Ledger() }
              group.addTask {
                var outcome = Outcome(producer: producer)
                // 1 MiB holds far fewer than 8 x 40,000 notes: the disk fills first.
                while outcome.sent < 40_000 {
                  await store.send(.note("\(producer)/\(outcome.sent)/padding-to-fill-the-disk"))
                  outcome.sent += 1
                  guard outcome.sent % 16 == 0 else { continue }
                  do {
                    try await journal.waitUntilDurable()
                    outcome.durable = outcome.sent
                  } catch {
                    outcome.failure = error
                    break
                  }
                }
                return outcome
              }
            }
            return try await group.reduce(into: []) { $0.append($1) }
          }
          for outcome in outcomes {
            let failure = outcome.failure as? IOError
            #expect(failure?.errno == ENOSPC, "\(outcome.producer): \(String(describing: failure))")
            #expect(
              "\(String(describing: failure))".contains("\(path)."),
              "the error names a segment of the journal: \(String(describing: failure))")
          }
          #expect(outcomes.allSatisfy { $0.durable > 0 }, "every producer had a durable note")
          await #expect(throws: IOError.self) { try await journal.close() }

          let reopened = try await Journal.open(
            path: path, configuration: configuration, engine: engine)
          #expect(reopened.opening.segments > 1, "the notes span several segments")
          for cut in reopened.opening.cuts {
            #expect(cut.code == .cutOff, "\(cut)")
          }
          for outcome in outcomes {
            let recovery = try await reopened.recover(
              for: outcome.producer, initialState: Ledger.State()
            ) { Ledger() }
            let notes = recovery.state.notes
            let producer = outcome.producer
            #expect(
              notes == (0..<notes.count).map { "\(producer)/\($0)/padding-to-fill-the-disk" },
              "store \(producer): its notes in order, without a gap")
            #expect(
              notes.count >= outcome.durable,
              "store \(producer): \(notes.count) recovered, \(outcome.durable) reported durable")
            #expect(notes.count <= outcome.sent)
          }
          try await reopened.close()
        }
      }
    }
  }
}

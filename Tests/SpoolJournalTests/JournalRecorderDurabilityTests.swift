#if canImport(Glibc)
  import Glibc
#endif
import Foundation
import SpoolCore
@testable import SpoolIO
@testable import SpoolJournal
import Synchronization
import Testing

extension SpoolJournalTests {
  /// `waitUntilDurable()`: acknowledged actions are on disk, shared syncs, kills and full disks.
  @Suite struct JournalRecorderDurabilityTests {
    /// The values of the `.add` actions among `actions`.
    func addedValues(_ actions: [Ledger.Action]) -> Set<Int> {
      Set(actions.compactMap { if case .add(let value) = $0 { value } else { nil } })
    }

    /// Eight producers, each acknowledging every action it sends only after
    /// `waitUntilDurable()`: every acknowledged action is in the journal, which is left
    /// unfinished (as a killed process leaves it) and loads as cut off.
    @Test(arguments: allBackends)
    func concurrentProducersAreAcknowledgedDurably(
      backend: IOBackend.Preference
    ) async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await withEngine(backend) { engine in
        let path = directory.file("durable")
        let recorder = try ActionJournal<Ledger.Action>.recording(to: path, engine: engine)
        let store = Store(initialState: Ledger.State(), instrumentation: recorder) { Ledger() }
        // Nothing recorded yet: nothing to wait for.
        try await recorder.waitUntilDurable()
        let acknowledged = try await withThrowingTaskGroup(of: [Int].self) { group in
          for producer in 0..<8 {
            group.addTask {
              var values: [Int] = []
              for index in 0..<100 {
                let value = producer * 1_000 + index
                await store.send(.add(value))
                try await recorder.waitUntilDurable()
                values.append(value)
              }
              return values
            }
          }
          return try await group.reduce(into: []) { $0 += $1 }
        }
        let contents = try await ActionJournal<Ledger.Action>(path: path, engine: engine).load()
        let recorded = addedValues(contents.actions)
        #expect(acknowledged.count == 800)
        #expect(acknowledged.allSatisfy { recorded.contains($0) })
        #expect(contents.unverifiable != nil)
        await store.finish()
        try await recorder.finish(finalState: await store.state)
      }
    }

    /// A full disk (a real 1 MiB tmpfs): `waitUntilDurable()` throws ENOSPC, and every action
    /// it acknowledged before loads back.
    @Test(.needsSmallTmpfs, arguments: allBackends)
    func aFullDiskLosesNothingAcknowledged(backend: IOBackend.Preference) async throws {
      try await SmallTmpfs.with { disk in
        try await withEngine(backend) { engine in
          let path = disk.file("full")
          let recorder = try ActionJournal<Ledger.Action>.recording(
            to: path, configuration: JournalConfiguration(bufferBytes: 16 << 10), engine: engine)
          let store = Store(initialState: Ledger.State(), instrumentation: recorder) { Ledger() }
          let (acknowledged, _, failure) = await Ledger.fill(store, upTo: 200_000, batch: 500) {
            try await recorder.waitUntilDurable()
          }
          #expect((failure as? IOError)?.errno == ENOSPC, "\(String(describing: failure))")
          await #expect(throws: IOError.self) { try await recorder.finish() }
          let contents = try await ActionJournal<Ledger.Action>(path: path, engine: engine).load()
          #expect(contents.actions.count >= acknowledged)
          #expect(contents.actions.prefix(acknowledged) == ArraySlice((0..<acknowledged).map {
            Ledger.Action.add($0)
          }))
        }
      }
    }

    /// The child of ``aKilledProcessLosesNoAcknowledgedAction()``: records with eight
    /// producers, appending each acknowledged value to a file, until it is killed. Runs only in
    /// that child process (the test binary run again with `SPOOL_JOURNAL_KILL_CHILD` set).
    @Test(.enabled(if: ProcessInfo.processInfo.environment[KillChild.variable] != nil))
    func killChildRecordsUntilKilled() async throws {
      let folder = ProcessInfo.processInfo.environment[KillChild.variable] ?? ""
      let recorder = try ActionJournal<Ledger.Action>.recording(to: "\(folder)/journal")
      let store = Store(initialState: Ledger.State(), instrumentation: recorder) { Ledger() }
      let acks = open("\(folder)/acks", O_WRONLY | O_CREAT | O_APPEND, 0o644)
      #expect(acks >= 0)
      let deadline = ContinuousClock.now + .seconds(60)
      try await withThrowingTaskGroup(of: Void.self) { group in
        for producer in 0..<8 {
          group.addTask {
            var index = 0
            while ContinuousClock.now < deadline {
              let value = producer * 10_000_000 + index
              await store.send(.add(value))
              try await recorder.waitUntilDurable()
              // One write per line, to an O_APPEND file: lines never interleave.
              let line = Array("\(value)\n".utf8)
              _ = line.withUnsafeBytes { write(acks, $0.baseAddress, $0.count) }
              index += 1
            }
          }
        }
        try await group.waitForAll()
      }
    }

    /// `kill -9` of a process that records with durable acknowledgements, 20 times at random
    /// moments: every value the child acknowledged (wrote to its acks file after
    /// `waitUntilDurable()`) is in the journal it leaves, which loads as cut off.
    @Test func aKilledProcessLosesNoAcknowledgedAction() async throws {
      for round in 0..<20 {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let child = try KillChild(folder: directory.path)
        // Killed at a random moment after it acknowledged its first action.
        let acked = try await child.waitForAcknowledgements(atLeast: 1)
        #expect(acked, "round \(round): the child acknowledged nothing within 60 s")
        try await Task.sleep(for: .milliseconds(Int.random(in: 0...300)))
        child.kill()
        let acknowledged = directory.linesOf("acks").compactMap(Int.init)
        let contents = try await ActionJournal<Ledger.Action>(path: directory.file("journal"))
          .load()
        let recorded = addedValues(contents.actions)
        let lost = acknowledged.filter { !recorded.contains($0) }
        #expect(lost.isEmpty, "round \(round): \(lost.count) of \(acknowledged.count) lost")
        #expect(contents.unverifiable != nil)
      }
    }
  }
}

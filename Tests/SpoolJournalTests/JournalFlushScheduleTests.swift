import SpoolCore
@testable import SpoolIO
@testable import SpoolJournal
import Synchronization
import Testing

extension SpoolJournalTests {
  /// The timed flush: armed by a record, asleep without a timer otherwise, stopped at once.
  @Suite struct JournalFlushScheduleTests {
    /// Waits until `condition` holds, polling; fails the test after 60 s rather than hang.
    private func eventually(
      _ what: String, sourceLocation: SourceLocation = #_sourceLocation,
      _ condition: () -> Bool
    ) async throws {
      for _ in 0..<6_000 {
        if condition() { return }
        try await Task.sleep(for: .milliseconds(10))
      }
      Issue.record("never: \(what)", sourceLocation: sourceLocation)
    }

    /// Each signal is followed by one flush; a signal that arrives while the task sleeps or
    /// flushes is not lost.
    @Test func eachSignalIsFollowedByAFlush() async throws {
      let flushes = Atomic<Int>(0)
      let schedule = JournalFlushSchedule(interval: .milliseconds(1))
      schedule.start {
        flushes.add(1, ordering: .relaxed)
        return true
      }
      defer { schedule.stop() }
      schedule.signal()
      try await eventually("a first flush") { flushes.load(ordering: .relaxed) >= 1 }
      let after = flushes.load(ordering: .relaxed)
      schedule.signal()
      try await eventually("a flush after the second signal") {
        flushes.load(ordering: .relaxed) > after
      }
    }

    /// A recorder whose interval is an hour finishes without waiting for it, idle or not:
    /// `finish` stops the schedule rather than waiting for its sleep to end.
    @Test func aRecorderFinishesWithoutWaitingForItsInterval() async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await withEngine(.automatic) { engine in
        let hourly = JournalConfiguration(flushInterval: .seconds(3_600))
        let idle = try ActionJournal<Ledger.Action>.recording(
          to: directory.file("idle"), configuration: hourly, engine: engine)
        #expect(try await idle.finish().actions == 0)
        let busy = try ActionJournal<Ledger.Action>.recording(
          to: directory.file("busy"), configuration: hourly, engine: engine)
        busy.actionReduced(.add(1), enqueuedAt: 1, startedAt: 1, endedAt: 1)
        #expect(try await busy.finish().actions == 1)
      }
    }

    /// A record is written one interval after it arrives, without `flush()`; so is one that
    /// arrives after that flush (the schedule re-arms).
    @Test(arguments: allBackends)
    func recordsAreWrittenOneIntervalAfterTheyArrive(
      backend: IOBackend.Preference
    ) async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await withEngine(backend) { engine in
        let path = directory.file("timed")
        let recorder = try ActionJournal<Ledger.Action>.recording(
          to: path, configuration: JournalConfiguration(flushInterval: .milliseconds(5)),
          engine: engine)
        let file = ActionJournal<Ledger.Action>(path: path).file(0)
        recorder.actionReduced(.add(1), enqueuedAt: 1, startedAt: 1, endedAt: 1)
        try await eventually("the first record in the file") {
          fileBytes(file).count > journalHeaderSize(Ledger.Action.self)
        }
        let first = fileBytes(file).count
        recorder.actionReduced(.add(2), enqueuedAt: 2, startedAt: 2, endedAt: 2)
        try await eventually("the second record in the file") {
          fileBytes(file).count > first
        }
        let contents = try await ActionJournal<Ledger.Action>(path: path, engine: engine).load()
        #expect(contents.actions == [.add(1), .add(2)])
        try await recorder.finish()
      }
    }
  }
}

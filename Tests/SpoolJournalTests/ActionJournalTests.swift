import Clocks
import SpoolCore
@testable import SpoolIO
@testable import SpoolJournal
import Synchronization
import Testing

extension SpoolJournalTests {
  @Suite struct ActionJournalTests {
    @Test(arguments: allBackends)
    func everyActionCaseRoundTripsAndTheReplayIsVerified(
      backend: IOBackend.Preference
    ) async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await withEngine(backend) { engine in
        let path = directory.file("ledger")
        let (summary, state) = try await recordLedger(Ledger.everyCase, to: path, engine: engine)
        // `.request` sends `.response` from its effect: recorded too, in the order reduced.
        #expect(summary.actions == Ledger.everyCase.count + 1)
        #expect(summary.droppedActions == 0)
        #expect(summary.files == 1)
        #expect(directory.entries() == ["ledger.0.journal", "ledger.lock"])

        let journal = ActionJournal<Ledger.Action>(path: path, engine: engine)
        let contents = try await journal.load()
        #expect(contents.actions == Ledger.everyCase + [.response(11)])
        #expect(contents.enqueueTimes.count == contents.actions.count)
        #expect(contents.enqueueTimes == contents.enqueueTimes.sorted())
        #expect(contents.unverifiable == nil)

        let store = replayStore()
        let result = try await journal.replay(into: store, pace: .fullSpeed)
        #expect(result.actions == Ledger.everyCase.count + 1)
        #expect(await store.state == state)
        #expect(result.verification == .verified(checksum: try StateChecksum.of(state)))
      }
    }

    @Test(arguments: allBackends)
    func filesRotateBySizeAndReplayInOrder(backend: IOBackend.Preference) async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await withEngine(backend) { engine in
        let path = directory.file("rotating")
        let (actions, summary, state) = try await recordRotatingLedger(to: path, engine: engine)
        #expect(summary.files > 3)
        #expect(summary.actions == 3_000)
        #expect(!summary.stoppedAtLimit)
        let journal = ActionJournal<Ledger.Action>(path: path, engine: engine)
        for index in 0..<summary.files {
          let size = fileBytes(journal.file(index)).count
          // At most the limit, except the last, which may exceed it by its end record.
          #expect(size <= 4_096 + (index == summary.files - 1 ? 40 : 0))
        }
        #expect(directory.entries().filter { $0.hasSuffix(".journal") }.count == summary.files)

        let contents = try await journal.load()
        #expect(contents.files == summary.files)
        #expect(contents.actions == actions)
        let store = replayStore()
        let result = try await contents.replay(into: store)
        #expect(await store.state == state)
        #expect(result.files == summary.files)
        guard case .verified = result.verification else {
          Issue.record("not verified: \(result.verification)")
          return
        }
      }
    }

    /// `ActionJournal.replay` reads file after file (one in memory at a time) and reaches the
    /// same verified state as a replay of the loaded contents.
    @Test(arguments: allBackends)
    func theStreamingReplayCrossesRotations(backend: IOBackend.Preference) async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await withEngine(backend) { engine in
        let path = directory.file("streamed")
        let (_, summary, state) = try await recordRotatingLedger(to: path, engine: engine)
        #expect(summary.files > 3)
        let store = replayStore()
        let result = try await ActionJournal<Ledger.Action>(path: path, engine: engine)
          .replay(into: store)
        #expect(result.actions == 3_000)
        #expect(result.files == summary.files)
        #expect(await store.state == state)
        #expect(result.verification == .verified(checksum: try StateChecksum.of(state)))
      }
    }

    /// The streaming replay checks the whole journal before it enqueues anything: a corrupt
    /// record in the last file leaves the store untouched.
    @Test func aBadRecordInTheLastFileFailsBeforeAnyActionIsReplayed() async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await withEngine(.automatic) { engine in
        let path = directory.file("late")
        let (_, summary, _) = try await recordRotatingLedger(to: path, engine: engine)
        let journal = ActionJournal<Ledger.Action>(path: path, engine: engine)
        let last = journal.file(summary.files - 1)
        var bytes = fileBytes(last)
        // The last byte of the last action record (before the end record): inside its
        // payload, so its CRC no longer matches (a flipped length would read as a cut).
        bytes[bytes.count - endRecordSize(actions: 3_000, dropped: 0) - 1] ^= 0xFF
        writeFileBytes(last, bytes)
        let store = replayStore()
        await #expect(throws: JournalError.self) { try await journal.replay(into: store) }
        #expect(await store.state == Ledger.State())
      }
    }

    @Test func aNewRecordingRemovesTheFilesOfAnEarlierOne() async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await withEngine(.automatic) { engine in
        let path = directory.file("again")
        let small = JournalConfiguration(maxFileBytes: 4_096, bufferBytes: 4_096)
        let first = try await recordLedger(
          (0..<2_000).map { .add($0) }, to: path, configuration: small, engine: engine)
        #expect(first.summary.files > 2)
        _ = try await recordLedger([.tick], to: path, configuration: small, engine: engine)
        #expect(directory.entries() == ["again.0.journal", "again.lock"])
        let contents = try await ActionJournal<Ledger.Action>(path: path, engine: engine).load()
        #expect(contents.actions == [.tick])
      }
    }

    @Test func recordingStopsAtTheLastFileAndTheReplaySaysItCannotVerify() async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await withEngine(.automatic) { engine in
        let path = directory.file("bounded")
        let configuration = JournalConfiguration(
          maxFileBytes: 4_096, maxFiles: 2, bufferBytes: 4_096)
        let (summary, _) = try await recordLedger(
          (0..<5_000).map { .add($0) }, to: path, configuration: configuration, engine: engine)
        #expect(summary.files == 2)
        #expect(summary.stoppedAtLimit)
        #expect(summary.actions + summary.droppedActions == 5_000)
        #expect(directory.entries() == ["bounded.0.journal", "bounded.1.journal", "bounded.lock"])

        let journal = ActionJournal<Ledger.Action>(path: path, engine: engine)
        let result = try await journal.replay(into: replayStore())
        #expect(result.actions == summary.actions)
        let endOffset =
          fileBytes(journal.file(1)).count
          - endRecordSize(actions: summary.actions, dropped: summary.droppedActions)
        #expect(
          result.verification
            == .unverified(
              JournalError(
                file: journal.file(1), offset: endOffset,
                problem: .noStateChecksum(
                  "the recorder dropped \(summary.droppedActions) actions"
                    + " (size limit or late actions)"))))
      }
    }

    @Test func aReplayThatRunsTheEffectsAgainIsAMismatchNamingBothChecksums() async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await withEngine(.automatic) { engine in
        let path = directory.file("effects")
        let (_, state) = try await recordLedger(
          [.request(1), .request(2)], to: path, engine: engine)
        #expect(state.responses == 2)
        let journal = ActionJournal<Ledger.Action>(path: path, engine: engine)
        // The effects run again: each `.response` is reduced twice.
        let store = Store(initialState: Ledger.State()) { Ledger() }
        let replayedState = Ledger.State(
          count: 6, total: 6, notes: [], tags: [:], ratio: 0, entries: [], responses: 4)
        let bytes = fileBytes(journal.file(0))
        await #expect(
          throws: JournalError(
            file: journal.file(0), offset: bytes.count - endRecordSize(actions: 4, dropped: 0),
            problem: .stateMismatch(
              recorded: try StateChecksum.of(state),
              replayed: try StateChecksum.of(replayedState)))
        ) {
          try await journal.replay(into: store)
        }
        #expect(await store.state == replayedState)
      }
    }

    /// Both replays, from loaded contents and streamed from the files, keep the pace.
    @Test(arguments: [false, true])
    func theReplayAtTheRecordedPaceWaitsOnTheClock(streaming: Bool) async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await withEngine(.automatic) { engine in
        let path = directory.file("paced")
        let recorder = try ActionJournal<Ledger.Action>.recording(to: path, engine: engine)
        // Recorded 10 ms and 30 ms after the first action.
        let times: [UInt64] = [5_000_000_000, 5_010_000_000, 5_030_000_000]
        var state = Ledger.State()
        for (value, time) in zip([1, 2, 3], times) {
          recorder.actionReduced(.add(value), enqueuedAt: time, startedAt: time, endedAt: time)
          _ = Ledger().reduce(into: &state, action: .add(value))
        }
        try await recorder.finish(finalState: state)
        let contents = try await ActionJournal<Ledger.Action>(path: path, engine: engine).load()
        #expect(contents.enqueueTimes == times)

        let clock = TestClock()
        let start = clock.now
        let store = replayStore()
        let finished = Mutex(false)
        let replay = Task {
          defer { finished.withLock { $0 = true } }
          if streaming {
            return try await ActionJournal<Ledger.Action>(path: path, engine: engine)
              .replay(into: store, pace: .recorded(clock))
          }
          return try await contents.replay(into: store, pace: .recorded(clock))
        }
        // The replay cannot end before the clock passed the last action's 30 ms.
        while !finished.withLock({ $0 }) {
          await clock.advance(by: .milliseconds(1))
        }
        let result = try await replay.value
        #expect(start.duration(to: clock.now) >= .milliseconds(30))
        #expect(result.actions == 3)
        #expect(await store.state == state)
        #expect(result.verification == .verified(checksum: try StateChecksum.of(state)))
      }
    }

    @Test func callsAreForwardedToTheNextInstrumentation() async throws {
      final class Counting: StoreInstrumentation, Sendable {
        let reduced = Atomic(0)
        let effects = Atomic(0)
        func actionReduced(
          _ action: Ledger.Action, enqueuedAt: UInt64, startedAt: UInt64, endedAt: UInt64
        ) {
          reduced.add(1, ordering: .relaxed)
        }
        func effectStarted(by action: Ledger.Action, at time: UInt64) {}
        func effectEnded(
          by action: Ledger.Action, startedAt: UInt64, endedAt: UInt64, outcome: EffectOutcome
        ) {
          effects.add(1, ordering: .relaxed)
        }
      }
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await withEngine(.automatic) { engine in
        let counting = Counting()
        _ = try await recordLedger(
          [.tick, .request(3)], to: directory.file("forwarded"), engine: engine, next: counting)
        #expect(counting.reduced.load(ordering: .relaxed) == 3)
        #expect(counting.effects.load(ordering: .relaxed) == 1)
      }
    }

    /// A journal needs arrival times only, so the store does not time reduces for it, unless
    /// the instrumentation it forwards to does.
    @Test func aJournalDoesNotAskForReduceTimesUnlessItsNextDoes() throws {
      final class Timing: StoreInstrumentation, Sendable {
        func actionReduced(
          _ action: Ledger.Action, enqueuedAt: UInt64, startedAt: UInt64, endedAt: UInt64
        ) {}
        func effectStarted(by action: Ledger.Action, at time: UInt64) {}
        func effectEnded(
          by action: Ledger.Action, startedAt: UInt64, endedAt: UInt64, outcome: EffectOutcome
        ) {}
      }
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      let alone = try ActionJournal<Ledger.Action>.recording(to: directory.file("alone"))
      let forwarding = try ActionJournal<Ledger.Action>.recording(
        to: directory.file("forwarding"), forwardingTo: Timing())
      #expect(!alone.timesReduces)
      #expect(forwarding.timesReduces)
    }

    @Test func recordingIntoAMissingFolderFailsAtOnce() throws {
      #expect(
        throws: JournalError(
          file: "/nope/spool-journal.0.journal", offset: 0,
          problem: .io(IOError(errno: 2, operation: "access", target: .path("/nope"))))
      ) {
        _ = try ActionJournal<Ledger.Action>.recording(to: "/nope/spool-journal")
      }
    }

    /// A journaled store's `enqueue` pushes and its drain loop reduces and records, while
    /// `send` reduces on the caller's thread: four producers mixing the two, each producer's
    /// actions are recorded in the order it sent them, none lost or doubled.
    @Test func eachProducersActionsAreRecordedInOrderThroughEnqueueAndSend() async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await withEngine(.automatic) { engine in
        let path = directory.file("producers")
        let recorder = try ActionJournal<Ledger.Action>.recording(to: path, engine: engine)
        let store = Store(initialState: Ledger.State(), instrumentation: recorder) { Ledger() }
        let producers = 4
        let perProducer = 3_000
        await withTaskGroup(of: Void.self) { group in
          for producer in 0..<producers {
            group.addTask {
              for index in 0..<perProducer {
                let action = Ledger.Action.add(producer * 100_000 + index)
                if index % 7 == 3 { await store.send(action) } else { store.enqueue(action) }
              }
            }
          }
        }
        await store.finish()
        try await recorder.finish(finalState: await store.state)
        let contents = try await ActionJournal<Ledger.Action>(path: path, engine: engine).load()
        #expect(contents.unverifiable == nil)
        var seen = [[Int]](repeating: [], count: producers)
        for case .add(let value) in contents.actions { seen[value / 100_000].append(value) }
        #expect(contents.actions.count == producers * perProducer)
        for producer in 0..<producers {
          let expected = (0..<perProducer).map { producer * 100_000 + $0 }
          #expect(seen[producer] == expected, "producer \(producer)")
        }
      }
    }

    /// `flush()` writes what was recorded without ending the journal: before it, nothing is
    /// in the file (no interval, the buffer is far from full); after it, every action is, and
    /// the journal reads as cut off until `finish` adds the end record.
    @Test(arguments: allBackends)
    func flushWritesWhatWasRecordedWithoutFinishing(
      backend: IOBackend.Preference
    ) async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await withEngine(backend) { engine in
        let path = directory.file("flushed")
        let recorder = try ActionJournal<Ledger.Action>.recording(
          to: path, configuration: JournalConfiguration(flushInterval: nil), engine: engine)
        let store = Store(initialState: Ledger.State(), instrumentation: recorder) { Ledger() }
        let actions = (1...50).map { Ledger.Action.add($0) }
        for action in actions { store.enqueue(action) }
        await store.finish()
        let journal = ActionJournal<Ledger.Action>(path: path, engine: engine)
        await #expect(throws: JournalError.self) { try await journal.load() }

        try await recorder.flush()
        let flushed = try await journal.load()
        #expect(flushed.actions == actions)
        #expect(flushed.unverifiable != nil)

        try await recorder.finish(finalState: await store.state)
        let finished = try await journal.load()
        #expect(finished.actions == actions)
        #expect(finished.unverifiable == nil)
      }
    }

    /// With a flush interval, recorded actions reach the file without `flush()` or `finish`:
    /// what a killed process leaves behind.
    @Test(arguments: allBackends)
    func theFlushIntervalWritesWithoutBeingAsked(backend: IOBackend.Preference) async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await withEngine(backend) { engine in
        let path = directory.file("interval")
        let recorder = try ActionJournal<Ledger.Action>.recording(
          to: path, configuration: JournalConfiguration(flushInterval: .milliseconds(5)),
          engine: engine)
        let store = Store(initialState: Ledger.State(), instrumentation: recorder) { Ledger() }
        let actions = (1...20).map { Ledger.Action.add($0) }
        for action in actions { store.enqueue(action) }
        await store.finish()
        let journal = ActionJournal<Ledger.Action>(path: path, engine: engine)
        // Waits for the condition, up to a generous bound for a loaded machine.
        let deadline = ContinuousClock.now + .seconds(120)
        var loaded: [Ledger.Action] = []
        while loaded != actions && ContinuousClock.now < deadline {
          loaded = (try? await journal.load())?.actions ?? []
          if loaded != actions { try await Task.sleep(for: .milliseconds(5)) }
        }
        #expect(loaded == actions)
        try await recorder.finish(finalState: await store.state)
      }
    }

    @Test func theFlushIntervalIsAtLeastAMillisecond() {
      #expect(JournalConfiguration().flushInterval == .milliseconds(100))
      #expect(JournalConfiguration(flushInterval: .zero).flushInterval == .milliseconds(1))
      #expect(JournalConfiguration(flushInterval: nil).flushInterval == nil)
    }
  }
}

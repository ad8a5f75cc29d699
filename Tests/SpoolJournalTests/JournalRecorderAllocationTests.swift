import CSpoolAllocationCounter
import SpoolCore
@testable import SpoolIO
@testable import SpoolJournal
import Testing

extension SpoolJournalTests {
  /// The recorder's hot path allocates nothing per action beyond what the action's own
  /// `encode(to:)` does: counted (on this thread, by the counting `malloc` of the test
  /// executable), not timed.
  @Suite(
    .enabled(
      if: cspool_allocation_counting_enabled() != 0, "no counting malloc under a sanitizer"))
  struct JournalRecorderAllocationTests {
    static let actions = 20_000

    /// Allocations of encoding `action` `actions` times with the journal's encoder alone.
    func encodingAllocations(_ action: Ledger.Action) throws -> UInt64 {
      let bytes = JournalBytes()
      let encoder = JournalValueEncoder(into: bytes)
      try encoder.encode(action)
      let before = cspool_thread_allocations()
      for _ in 0..<Self.actions {
        bytes.removeAll()
        try encoder.encode(action)
      }
      return UInt64(cspool_thread_allocations() - before)
    }

    @Test(arguments: [Ledger.Action.tick, .add(5), .tag(name: "checkout", weight: 2)])
    func recordingAnActionAllocatesOnlyWhatItsEncodingDoes(action: Ledger.Action) async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await withEngine(.automatic) { engine in
        let encoding = try encodingAllocations(action)
        // One chunk holds every record: no hand-over to the writer inside the loop; and no
        // timed flush, whose re-arming (once per interval, on whichever thread records next)
        // would land inside the loop on a loaded machine.
        let recorder = try ActionJournal<Ledger.Action>.recording(
          to: directory.file("allocations"),
          configuration: JournalConfiguration(bufferBytes: 4 << 20, flushInterval: nil),
          engine: engine)
        recorder.actionReduced(action, enqueuedAt: 1, startedAt: 1, endedAt: 1)
        let before = cspool_thread_allocations()
        // Times from a plain counter: iterating a `Range<UInt64>` allocates in debug builds.
        var time: UInt64 = 1
        for _ in 0..<Self.actions {
          time &+= 40
          recorder.actionReduced(action, enqueuedAt: time, startedAt: 0, endedAt: 0)
        }
        let recording = UInt64(cspool_thread_allocations() - before)
        let summary = try await recorder.finish()
        #expect(summary.actions == Self.actions + 1)
        #expect(
          recording == encoding,
          "recording: \(recording), encoding alone: \(encoding) for \(Self.actions) actions")
        // What `Codable` itself costs: one box per keyed container (the enum's, the case's).
        #expect(encoding == UInt64(2 * Self.actions))
      }
    }



    @Test func theCountingMallocCounts() {
      let before = cspool_thread_allocations()
      let array = [Int](repeating: 1, count: 1_000)
      #expect(cspool_thread_allocations() > before)
      #expect(array.count == 1_000)
    }
  }
}

extension SpoolJournalTests.JournalRecorderAllocationTests {
  /// The recording core itself (the encoding, the CRC, the copy into the chunk) allocates only
  /// what the encoding does.
  @Test func theRecordingCoreAllocatesOnlyWhatTheEncodingDoes() throws {
    let encoding = try encodingAllocations(.add(1))
    let core = JournalRecorderCore(
      for: Ledger.Action.self,
      configuration: JournalConfiguration(bufferBytes: 4 << 20),
      writer: JournalWriter(path: "/nonexistent/unused", engine: .shared), runID: 1)
    core.record(Ledger.Action.add(1), enqueuedAt: 1)
    let before = cspool_thread_allocations()
    var time: UInt64 = 1
    for _ in 0..<Self.actions {
      time &+= 40
      core.record(Ledger.Action.add(1), enqueuedAt: time)
    }
    #expect(UInt64(cspool_thread_allocations() - before) == encoding)
  }
}

extension SpoolJournalTests.JournalRecorderAllocationTests {
  /// Recording an action that adopts `JournalCodable` allocates nothing at all: it writes
  /// itself into the recorder's reused buffer.
  @Test(arguments: [
    Tally.Action.tick, .add(5), .label("checkout"), .item(Tally.Item(id: 3, label: "x")),
    .items([Tally.Item(id: 1, label: nil)], urgent: true),
  ])
  func recordingAJournalCodableActionAllocatesNothing(action: Tally.Action) async throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    try await withEngine(.automatic) { engine in
      // One chunk holds every record: no hand-over to the writer inside the loop; and no
      // timed flush, whose re-arming would land inside the loop on a loaded machine.
      let recorder = try ActionJournal<Tally.Action>.recording(
        to: directory.file("compact"),
        configuration: JournalConfiguration(bufferBytes: 4 << 20, flushInterval: nil),
        engine: engine)
      recorder.actionReduced(action, enqueuedAt: 1, startedAt: 1, endedAt: 1)
      let before = cspool_thread_allocations()
      var time: UInt64 = 1
      for _ in 0..<Self.actions {
        time &+= 40
        recorder.actionReduced(action, enqueuedAt: time, startedAt: 0, endedAt: 0)
      }
      let recording = UInt64(cspool_thread_allocations() - before)
      let summary = try await recorder.finish()
      #expect(summary.actions == Self.actions + 1)
      #expect(recording == 0, "\(recording) allocations for \(Self.actions) actions")
    }
  }
}

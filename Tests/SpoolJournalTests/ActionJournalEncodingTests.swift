import SpoolCore
@testable import SpoolIO
@testable import SpoolJournal
import Testing

extension SpoolJournalTests {
  /// A journal of a `JournalCodable` action is written in its compact encoding, says so in its
  /// header, replays, and is read only with the encoding and layout it was written with.
  @Suite struct ActionJournalEncodingTests {
    /// Records `actions` of `Tally` to `path`; returns the final state.
    private func recordTally(
      _ actions: [Tally.Action], to path: String, engine: IOEngine
    ) async throws -> Tally.State {
      let recorder = try ActionJournal<Tally.Action>.recording(to: path, engine: engine)
      let store = Store(initialState: Tally.State(), instrumentation: recorder) { Tally() }
      for action in actions { store.enqueue(action) }
      await store.finish()
      let state = await store.state
      let summary = try await recorder.finish(finalState: state)
      #expect(summary.actions == actions.count)
      #expect(summary.droppedActions == 0)
      return state
    }

    /// Rewrites the encoding in the header of `file` (and the header's CRC to match); returns
    /// the encoding's offset.
    @discardableResult
    private func patchEncoding(_ file: String, kind: UInt8, layout: UInt32) throws -> Int {
      var bytes = fileBytes(file)
      let header = try JournalFileParser(file: file, bytes: bytes).header()
      let offset = header.encodingOffset
      bytes[offset] = kind
      bytes.replaceSubrange((offset + 1)..<(offset + 5), with: JournalFormat.littleEndian(layout))
      // The CRC follows the layout, the previous run ID and the flags.
      let crc = CRC32.checksum(bytes[0..<(offset + 14)])
      bytes.replaceSubrange((offset + 14)..<(offset + 18), with: JournalFormat.littleEndian(crc))
      writeFileBytes(file, bytes)
      return offset
    }

    private func expectLoadError<Action: Codable & Sendable>(
      _: Action.Type, _ path: String, engine: IOEngine, _ expected: String,
      sourceLocation: SourceLocation = #_sourceLocation
    ) async {
      do {
        _ = try await ActionJournal<Action>(path: path, engine: engine).load()
        Issue.record("expected \(expected)", sourceLocation: sourceLocation)
      } catch {
        #expect(error.description == expected, sourceLocation: sourceLocation)
        #expect(!error.description.contains("\n"), sourceLocation: sourceLocation)
      }
    }

    @Test(arguments: allBackends)
    func aCompactJournalReplaysEveryCase(backend: IOBackend.Preference) async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await withEngine(backend) { engine in
        let path = directory.file("tally")
        let actions = Tally.everyCase + Tally.everyCase
        let state = try await recordTally(actions, to: path, engine: engine)
        let journal = ActionJournal<Tally.Action>(path: path, engine: engine)
        let bytes = fileBytes(journal.file(0))
        let header = try JournalFileParser(file: journal.file(0), bytes: bytes).header()
        #expect(header.encoding == .journalCodable(layout: 1))
        let contents = try await journal.load()
        #expect(contents.actions == actions)
        let replay = Store(initialState: Tally.State()) { Tally().discardingEffects() }
        let result = try await contents.replay(into: replay)
        #expect(result.verification == .verified(checksum: try StateChecksum.of(state)))
        #expect(await replay.state == state)
      }
    }

    @Test func aCompactRecordHoldsOnlyWhatTheActionWrote() async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await withEngine(.automatic) { engine in
        _ = try await recordTally([.add(1)], to: directory.file("compact"), engine: engine)
        let file = ActionJournal<Tally.Action>(path: directory.file("compact")).file(0)
        let parser = JournalFileParser(file: file, bytes: fileBytes(file))
        let first = try parser.record(at: try parser.header().end)
        guard case .action(let payload, _)? = first?.0,
          let (_, afterTime) = parser.varint(at: payload.startIndex, limit: payload.endIndex)
        else {
          Issue.record("the first record is not an action: \(String(describing: first))")
          return
        }
        // After the time delta: the case (1, `add`) and the zigzag varint of 1.
        #expect(Array(parser.bytes[afterTime..<payload.endIndex]) == [1, 2])
      }
    }

    @Test func aCodableJournalIsNotReadAsACompactOne() async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await withEngine(.automatic) { engine in
        let path = directory.file("codable")
        _ = try await recordLedger([.add(1)], to: path, engine: engine)
        let file = ActionJournal<Ledger.Action>(path: path).file(0)
        let offset = try patchEncoding(file, kind: 1, layout: 1)
        await expectLoadError(
          Ledger.Action.self, path, engine: engine,
          "journal \(file), byte \(offset): records actions encoded with JournalCodable "
            + "(layout 1), not Codable")
      }
    }

    @Test func aCompactJournalIsNotReadAsACodableOne() async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await withEngine(.automatic) { engine in
        let path = directory.file("compact")
        _ = try await recordTally([.add(1), .tick], to: path, engine: engine)
        let file = ActionJournal<Tally.Action>(path: path).file(0)
        let offset = try patchEncoding(file, kind: 0, layout: 0)
        await expectLoadError(
          Tally.Action.self, path, engine: engine,
          "journal \(file), byte \(offset): records actions encoded with Codable, not "
            + "JournalCodable (layout 1)")
      }
    }

    @Test func anotherLayoutVersionIsNamed() async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await withEngine(.automatic) { engine in
        let path = directory.file("layout")
        _ = try await recordTally([.add(1)], to: path, engine: engine)
        let file = ActionJournal<Tally.Action>(path: path).file(0)
        let offset = try patchEncoding(file, kind: 1, layout: 2)
        await expectLoadError(
          Tally.Action.self, path, engine: engine,
          "journal \(file), byte \(offset): records actions encoded with JournalCodable "
            + "(layout 2), not JournalCodable (layout 1)")
      }
    }

    @Test func anUnknownEncodingIsACorruptHeader() async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await withEngine(.automatic) { engine in
        let path = directory.file("unknown")
        _ = try await recordTally([.add(1)], to: path, engine: engine)
        let file = ActionJournal<Tally.Action>(path: path).file(0)
        let offset = try patchEncoding(file, kind: 9, layout: 1)
        await expectLoadError(
          Tally.Action.self, path, engine: engine,
          "journal \(file), byte \(offset): corrupt header: unknown action encoding 9")
      }
    }

    /// A record whose CRC is right but whose action is cut short (written by a bad
    /// `write(to:)`, or another layout under the same version) names the record and the byte.
    @Test func aTruncatedActionInAWholeRecordIsNamed() async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await withEngine(.automatic) { engine in
        let path = directory.file("truncated")
        let file = ActionJournal<Tally.Action>(path: path).file(0)
        var bytes = JournalFormat.header(
          index: 0, runID: 1, baseTime: 0, actionType: JournalFormat.typeName(Tally.Action.self),
          encoding: .journalCodable(layout: 1))
        let recordOffset = bytes.count
        // An action record: kind, time delta 0, case 1 (`add`) without its value.
        let payload: [UInt8] = [JournalFormat.RecordKind.action.rawValue, 0, 1]
        bytes += JournalFormat.recordHeader(payload: payload) + payload
        writeFileBytes(file, bytes)
        await expectLoadError(
          Tally.Action.self, path, engine: engine,
          "journal \(file), byte \(recordOffset): cannot decode the action: byte 1 of the "
            + "action: the record ends here: 1 more bytes needed, 0 left")
      }
    }
  }
}

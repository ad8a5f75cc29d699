#if canImport(Glibc)
  import Glibc
#endif
import SpoolCore
@testable import SpoolIO
@testable import SpoolJournal
import Testing

extension SpoolJournalTests {
  /// Every kind of bad journal ends with a one-line error naming the file and the byte; a
  /// journal cut off mid-record replays up to its last whole record and says it could not
  /// verify the final state.
  @Suite struct ActionJournalBadInputTests {
    /// Records a three-action journal at `name` in `directory`; returns its first file's path.
    private func recordThree(
      _ directory: TemporaryDirectory, _ name: String, engine: IOEngine
    ) async throws -> String {
      let path = directory.file(name)
      _ = try await recordLedger([.add(1), .add(2), .add(3)], to: path, engine: engine)
      return ActionJournal<Ledger.Action>(path: path).file(0)
    }

    private func expectLoadError(
      _ path: String, engine: IOEngine, _ expected: String,
      sourceLocation: SourceLocation = #_sourceLocation
    ) async {
      do {
        _ = try await ActionJournal<Ledger.Action>(path: path, engine: engine).load()
        Issue.record("expected \(expected)", sourceLocation: sourceLocation)
      } catch {
        #expect(error.description == expected, sourceLocation: sourceLocation)
        #expect(!error.description.contains("\n"), sourceLocation: sourceLocation)
      }
    }

    @Test(arguments: allBackends)
    func aCorruptByteIsACorruptRecordAtItsOffset(backend: IOBackend.Preference) async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await withEngine(backend) { engine in
        let file = try await recordThree(directory, "corrupt", engine: engine)
        var bytes = fileBytes(file)
        let header = journalHeaderSize(Ledger.Action.self)
        // The last byte of the first record's payload.
        let firstLength = Int(bytes[header]) | Int(bytes[header + 1]) << 8
        bytes[header + JournalFormat.recordOverhead + firstLength - 1] ^= 0x40
        writeFileBytes(file, bytes)
        await expectLoadError(
          directory.file("corrupt"), engine: engine,
          "journal \(file), byte \(header): corrupt record: its bytes do not match its checksum")
      }
    }

    @Test(arguments: allBackends)
    func aJournalCutOffMidRecordReplaysItsWholeRecords(
      backend: IOBackend.Preference
    ) async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await withEngine(backend) { engine in
        let file = try await recordThree(directory, "cut", engine: engine)
        var bytes = fileBytes(file)
        let header = journalHeaderSize(Ledger.Action.self)
        let firstLength = Int(bytes[header]) | Int(bytes[header + 1]) << 8
        let second = header + JournalFormat.recordOverhead + firstLength
        let secondLength = Int(bytes[second]) | Int(bytes[second + 1]) << 8
        // Killed while writing the second record: 3 of its payload bytes made it.
        bytes.removeSubrange((second + JournalFormat.recordOverhead + 3)...)
        writeFileBytes(file, bytes)

        let journal = ActionJournal<Ledger.Action>(path: directory.file("cut"), engine: engine)
        let store = replayStore()
        let result = try await journal.replay(into: store)
        #expect(result.actions == 1)
        #expect(await store.state.total == 1)
        guard case .unverified(let why) = result.verification else {
          Issue.record("verified a cut-off journal")
          return
        }
        #expect(
          why.description
            == "journal \(file), byte \(second): cut off: the file ends inside a record"
            + " (3 of its \(secondLength) bytes); the final state is not verified")
      }
    }

    @Test func aJournalCutOffBetweenRecordsSaysItHasNoEnd() async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await withEngine(.automatic) { engine in
        let file = try await recordThree(directory, "between", engine: engine)
        var bytes = fileBytes(file)
        let end = bytes.count - endRecordSize(actions: 3, dropped: 0)
        bytes.removeSubrange(end...)
        writeFileBytes(file, bytes)
        let contents = try await ActionJournal<Ledger.Action>(
          path: directory.file("between"), engine: engine
        ).load()
        #expect(contents.actions == [.add(1), .add(2), .add(3)])
        #expect(
          contents.unverifiable?.description
            == "journal \(file), byte \(end): cut off: the file ends after a whole record,"
            + " before the end record; the final state is not verified")
      }
    }

    @Test(arguments: allBackends)
    func anEmptyFileIsNamed(backend: IOBackend.Preference) async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await withEngine(backend) { engine in
        let file = directory.file("empty.0.journal")
        writeFileBytes(file, [])
        await expectLoadError(
          directory.file("empty"), engine: engine,
          "journal \(file), byte 0: the file is empty")
      }
    }

    @Test func aForeignFileIsNotAJournal() async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await withEngine(.automatic) { engine in
        let file = directory.file("foreign.0.journal")
        writeFileBytes(file, Array("{\"not\": \"a journal\"}\n".utf8))
        await expectLoadError(
          directory.file("foreign"), engine: engine,
          "journal \(file), byte 0: not a Spool journal (no SPOOLJNL magic)")
      }
    }

    @Test func aShortFileThatStartsLikeAJournalIsACorruptHeader() async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await withEngine(.automatic) { engine in
        let file = directory.file("short.0.journal")
        writeFileBytes(file, Array("SPOOLJNL".utf8) + [4, 0, 0])
        await expectLoadError(
          directory.file("short"), engine: engine,
          "journal \(file), byte 11: corrupt header: the file ends inside the header")
      }
    }

    @Test func anotherVersionIsNamedWithTheSupportedOne() async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await withEngine(.automatic) { engine in
        let file = try await recordThree(directory, "version", engine: engine)
        var bytes = fileBytes(file)
        bytes[8] = 7
        writeFileBytes(file, bytes)
        await expectLoadError(
          directory.file("version"), engine: engine,
          "journal \(file), byte 8: version 7, this Spool reads version 4")
      }
    }

    @Test(arguments: allBackends)
    func aJournalOfAnotherActionTypeIsNamed(backend: IOBackend.Preference) async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await withEngine(backend) { engine in
        let file = try await recordThree(directory, "other", engine: engine)
        let journal = ActionJournal<OtherAction>(path: directory.file("other"), engine: engine)
        let expected =
          "journal \(file), byte 32: records actions of type"
          + " \(String(reflecting: Ledger.Action.self)),"
          + " not \(String(reflecting: OtherAction.self))"
        await #expect(throws: JournalError.self) { _ = try await journal.load() }
        do {
          _ = try await journal.replay(
            into: Store(initialState: Ledger.State()) { EmptyReducer<Ledger.State, OtherAction>() })
          Issue.record("replayed a journal of another action type")
        } catch {
          #expect("\(error)" == expected)
        }
      }
    }

    @Test(arguments: allBackends)
    func aDamagedLengthIsCorruptionAtItsOffsetNotACut(
      backend: IOBackend.Preference
    ) async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await withEngine(backend) { engine in
        let file = try await recordThree(directory, "length", engine: engine)
        var bytes = fileBytes(file)
        let header = journalHeaderSize(Ledger.Action.self)
        let firstLength = Int(bytes[header]) | Int(bytes[header + 1]) << 8
        let second = header + JournalFormat.recordOverhead + firstLength
        let secondLength = Int(bytes[second]) | Int(bytes[second + 1]) << 8
        // One flipped bit makes the length point past the end of the file.
        bytes[second + 2] ^= 0x01
        writeFileBytes(file, bytes)
        await expectLoadError(
          directory.file("length"), engine: engine,
          "journal \(file), byte \(second): corrupt record: its header"
            + " (length \(secondLength + 65_536)) does not match its checksum")
      }
    }

    @Test func aJournalOfTheEarlierVersionNamesItsVersion() async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await withEngine(.automatic) { engine in
        let file = try await recordThree(directory, "old", engine: engine)
        var bytes = fileBytes(file)
        bytes[8] = 3
        writeFileBytes(file, bytes)
        await expectLoadError(
          directory.file("old"), engine: engine,
          "journal \(file), byte 8: version 3, this Spool reads version 4")
      }
    }

    /// A journal path that is a character device (here a symbolic link to `/dev/zero`, which
    /// never ends), a FIFO (whose open waits for a writer) or a directory is refused before
    /// anything is read; the engine stays free for other work, which the recording after it
    /// proves.
    @Test(arguments: allBackends)
    func aPathThatIsNotARegularFileIsRefusedAtOnce(
      backend: IOBackend.Preference
    ) async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await withEngine(backend) { engine in
        let device = directory.file("device.0.journal")
        #expect(symlink("/dev/zero", device) == 0)
        let fifo = directory.file("fifo.0.journal")
        #expect(mkfifo(fifo, 0o600) == 0)
        let folder = directory.file("folder.0.journal")
        #expect(mkdir(folder, 0o700) == 0)
        defer { rmdir(folder) }
        for (name, file, kind) in [
          ("device", device, "a character device"), ("fifo", fifo, "a FIFO"),
          ("folder", folder, "a directory"),
        ] {
          await expectLoadError(
            directory.file(name), engine: engine,
            "journal \(file), byte 0: not a regular file: \(kind)")
          do {
            _ = try ActionJournal<Ledger.Action>.recording(
              to: directory.file(name), engine: engine)
            Issue.record("recorded to \(kind)")
          } catch {
            #expect("\(error)" == "journal \(file), byte 0: not a regular file: \(kind)")
          }
        }
        let (summary, _) = try await recordLedger(
          [.add(1)], to: directory.file("after"), engine: engine)
        #expect(summary.actions == 1)
      }
    }

    @Test func aMissingJournalNamesItsFirstFile() async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await withEngine(.automatic) { engine in
        let file = directory.file("missing.0.journal")
        await expectLoadError(
          directory.file("missing"), engine: engine,
          "journal \(file), byte 0: stat(\"\(file)\"): No such file or directory (ENOENT)")
      }
    }

    @Test func aFileOfAnotherRecordingAmongTheRotatedOnesIsForeign() async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await withEngine(.automatic) { engine in
        let small = JournalConfiguration(maxFileBytes: 4_096, bufferBytes: 4_096)
        let actions = (0..<1_000).map { Ledger.Action.add($0) }
        let a = directory.file("a")
        let b = directory.file("b")
        _ = try await recordLedger(actions, to: a, configuration: small, engine: engine)
        _ = try await recordLedger(actions, to: b, configuration: small, engine: engine)
        let journal = ActionJournal<Ledger.Action>(path: a, engine: engine)
        writeFileBytes(journal.file(1), fileBytes(ActionJournal<Ledger.Action>(path: b).file(1)))
        await expectLoadError(
          a, engine: engine,
          "journal \(journal.file(1)), byte 14: file of another journal:"
            + " it was written by another recording")
      }
    }
  }
}

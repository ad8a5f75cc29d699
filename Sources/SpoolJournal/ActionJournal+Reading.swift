#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif
import SpoolCore
import SpoolIO

extension ActionJournal {
  /// Where a read starts.
  enum ReadStart {
    /// At file 0: every action from the first (``ActionJournal/load()``, replays).
    case first
    /// At the file of the newest whole snapshot, or file 0 when there is none (recovery).
    case newestSnapshot
  }

  /// What the reader hands out besides actions, in the order the records are read.
  enum ReadEvent {
    /// A snapshot record: its encoded state and checksum; `isStart` when the read started at
    /// it (the state to start from), else one to compare the replayed state with.
    case snapshot(state: ArraySlice<UInt8>, checksum: UInt64, file: String, offset: Int,
      isStart: Bool)
    /// A run's end record followed by a later run: the checksum of the state at that point.
    case runEnded(checksum: UInt64?, file: String, offset: Int)
  }

  /// What a run of files expects of the next file's header.
  private enum Expectation {
    /// The first file read: any run.
    case start
    /// After a rotation record of run `runID`: the same run, or a run that continues it (the
    /// rotation's file was never created, and a later recorder continued after it).
    case rotated(runID: UInt64)
    /// After a run's end or cut: a run that names `runID` (0: none read) as its previous run.
    case continuation(of: UInt64)
  }

  /// The start file's snapshot record was not all written (the recorder died while writing
  /// it): the read is tried again from an older start.
  private struct SnapshotNotWritten: Error {}

  /// Reads and checks the journal's files from `start`, one file in memory at a time, and
  /// hands each action with its enqueue time to `each`, and each snapshot and intermediate
  /// run end to `event`, in order, as their records are read.
  ///
  /// - Returns: What the journal says besides its actions (``JournalContents/actions`` and
  ///   ``JournalContents/enqueueTimes`` left empty; `recordedActions` counts them).
  /// - Throws: ``JournalError`` as ``load()`` does, or what `each` or `event` throws.
  func read(
    from start: ReadStart,
    event: (ReadEvent) async throws -> Void,
    _ each: (Action, UInt64) async throws -> Void
  ) async throws -> JournalContents<Action> {
    let indices = try JournalFiles.indices(of: path)
    switch start {
    case .first:
      if let first = indices.first, first != 0 {
        throw JournalError(
          file: file(0), offset: 0,
          problem: .missingFile(
            "the journal starts at file \(first): compaction removed the files before its"
              + " snapshot; recover it from there (recover(initialState:reducer:))"))
      }
      return try await read(indices, at: 0, from: start, snapshotStart: false, event, each)
    case .newestSnapshot:
      // Newest first: a snapshot file whose snapshot was not all written falls back to the
      // one before (compaction never removed what precedes a snapshot that is not durable).
      for index in indices.reversed() {
        let header: JournalFileParser.Header
        do {
          header = try await JournalFiles.header(of: file(index), engine: engine)
        } catch let error as JournalError where Self.isUnwritten(error) {
          continue
        } catch let error as JournalError {
          throw error
        } catch let error as IOError {
          throw JournalError(file: file(index), offset: 0, problem: .io(error))
        } catch {
          // Only cancellation is left: reported as the read's, as below.
          throw JournalError(
            file: file(index), offset: 0,
            problem: .io(IOError(errno: ECANCELED, operation: "read", target: .path(file(index)))))
        }
        guard header.startsWithSnapshot else { continue }
        do {
          return try await read(indices, at: index, from: start, snapshotStart: true, event, each)
        } catch is SnapshotNotWritten {
          continue
        }
      }
      if let first = indices.first, first != 0 {
        throw JournalError(
          file: file(0), offset: 0,
          problem: .missingFile(
            "the journal starts at file \(first), which does not start with a whole snapshot"))
      }
      return try await read(indices, at: 0, from: start, snapshotStart: false, event, each)
    }
  }

  /// Whether `error`, from a header's parser, says the file ends before its header does (or
  /// is empty): what a recorder leaves when it dies, or the disk fills, as it starts a file.
  /// A header that is all there but wrong is corruption, not this.
  private static func isUnwritten(_ error: JournalError) -> Bool {
    error.code == .empty || JournalFileParser.endsInsideHeader(error)
  }

  /// ``read(from:event:_:)`` from file 0, ignoring snapshots and run ends.
  func readFromFirst(
    _ each: (Action, UInt64) async throws -> Void
  ) async throws -> JournalContents<Action> {
    try await read(from: .first, event: { _ in }, each)
  }

  private func read(
    _ indices: [Int], at startIndex: Int, from start: ReadStart, snapshotStart: Bool,
    _ event: (ReadEvent) async throws -> Void,
    _ each: (Action, UInt64) async throws -> Void
  ) async throws -> JournalContents<Action> {
    var contents = JournalContents<Action>(path: path)
    let expectedType = JournalFormat.typeName(Action.self)
    let expectedEncoding = JournalActionEncoding.of(Action.self)
    let read = JournalActionEncoding.reader(for: Action.self)
    let lastIndex = indices.last ?? startIndex
    var expectation = Expectation.start
    var runID: UInt64 = 0
    /// Actions of the current run so far: what its snapshots and its end record count.
    var runActions: UInt64 = 0
    var index = startIndex
    var time: UInt64 = 0
    /// The file that ended with a rotation record, while the next one is not read yet: the
    /// last file, with what its writer reserved past its end, when the next one is missing.
    var rotated: JournalOpenTail?
    while true {
      let file = self.file(index)
      contents.lastIndex = index
      let bytes: [UInt8]
      do {
        bytes = try await JournalFileReading.read(file, engine: engine)
      } catch let error as JournalError {
        throw error
      } catch let error as IOError {
        if index > startIndex && error.errno == ENOENT {
          if index < lastIndex {
            throw JournalError(
              file: file, offset: 0,
              problem: .missingFile("file \(index) is missing, file \(lastIndex) exists"))
          }
          contents.unverifiable = JournalError(
            file: file, offset: 0,
            problem: .cutOff("the file is missing after the rotation ending file \(index - 1)"))
          // The writer releases a rotated file's reservation as it starts the next file.
          if let rotated, rotated.index == index - 1 { contents.openTail = rotated }
          return contents
        }
        throw JournalError(file: file, offset: 0, problem: .io(error))
      } catch {
        throw JournalError(
          file: file, offset: 0,
          problem: .io(IOError(errno: ECANCELED, operation: "read", target: .path(file))))
      }
      let parser = JournalFileParser(file: file, bytes: bytes)
      let header: JournalFileParser.Header
      do {
        header = try parser.header()
      } catch {
        // A file the recorder created and had no time to fill, or whose header a full disk
        // cut short: a cut-off journal, continued (or not) in the next file. A lone first file
        // is reported as it is to `load()`.
        guard Self.isUnwritten(error), index > startIndex || index < lastIndex
          || start == .newestSnapshot
        else { throw error }
        let cut = JournalError(
          file: file, offset: error.offset,
          problem: .cutOff(
            error.code == .empty ? "the file is empty" : "the file ends inside its header"))
        if index < lastIndex {
          expectation = .continuation(of: runID)
          index += 1
          continue
        }
        contents.unverifiable = cut
        contents.openTail = JournalOpenTail(
          index: index, size: bytes.count, validEnd: bytes.count, runID: nil)
        return contents
      }
      guard header.actionType == expectedType else {
        throw parser.error(
          JournalFormat.actionTypeOffset,
          .actionTypeMismatch(recorded: header.actionType, expected: expectedType))
      }
      guard header.encoding == expectedEncoding else {
        throw parser.error(
          header.encodingOffset,
          .encodingMismatch(
            recorded: header.encoding.description, expected: expectedEncoding.description))
      }
      guard header.index == UInt32(index) else {
        throw parser.error(
          JournalFormat.indexOffset, .foreignFile("its index is \(header.index), not \(index)"))
      }
      switch expectation {
      case .start:
        runActions = 0
      case .rotated(let previous):
        guard header.runID == previous || header.previousRunID == previous else {
          throw parser.error(
            JournalFormat.runIDOffset, .foreignFile("it was written by another recording"))
        }
        if header.runID != previous { runActions = 0 }
      case .continuation(let previous):
        guard header.runID != previous, header.previousRunID == previous else {
          throw parser.error(
            JournalFormat.runIDOffset,
            .foreignFile("it does not continue the recording in the file before it"))
        }
        runActions = 0
      }
      runID = header.runID
      contents.lastRunID = runID
      time = header.baseTime
      contents.files += 1
      contents.bytes += bytes.count
      var offset = header.end
      var next: Expectation?
      while next == nil {
        let parsed: (JournalFileParser.Record, next: Int)?
        do {
          parsed = try parser.record(at: offset)
        } catch {
          guard case .cutOff = error.problem else { throw error }
          if snapshotStart && index == startIndex && offset == header.end {
            throw SnapshotNotWritten()
          }
          // A torn tail: left behind, and the journal goes on in a later run if there is one.
          if index < lastIndex {
            next = .continuation(of: runID)
            continue
          }
          contents.unverifiable = error
          // The torn record starts at `offset`, where the last whole one ends.
          contents.openTail = JournalOpenTail(
            index: index, size: bytes.count, validEnd: offset, runID: header.runID)
          return contents
        }
        guard let (record, after) = parsed else {
          if snapshotStart && index == startIndex && offset == header.end {
            throw SnapshotNotWritten()
          }
          if index < lastIndex {
            next = .continuation(of: runID)
            continue
          }
          contents.unverifiable = parser.error(
            offset, .cutOff("the file ends after a whole record, before the end record"))
          contents.openTail = JournalOpenTail(
            index: index, size: bytes.count, validEnd: bytes.count, runID: header.runID)
          return contents
        }
        if snapshotStart && index == startIndex && offset == header.end {
          guard case .snapshot = record else {
            throw parser.error(
              offset, .corruptRecord("the header says a snapshot starts the file; it does not"))
          }
        }
        switch record {
        case .action(let payload, let recordOffset):
          guard let (delta, start) = parser.varint(at: payload.startIndex, limit: payload.endIndex)
          else {
            throw parser.error(recordOffset, .corruptRecord("a malformed enqueue time"))
          }
          let signed = Int64(bitPattern: delta >> 1) ^ -Int64(bitPattern: delta & 1)
          time = time &+ UInt64(bitPattern: signed)
          let action: Action
          do {
            action =
              if let read {
                try JournalRecordReader.read(read, from: bytes, in: start..<payload.endIndex)
              } else {
                try JournalValueDecoder.decode(
                  Action.self, from: Array(bytes[start..<payload.endIndex]))
              }
          } catch {
            throw parser.error(recordOffset, .undecodableAction("\(error)"))
          }
          contents.recordedActions += 1
          runActions += 1
          try await each(action, time)
        case .snapshot(let checksum, let actions, let state, let recordOffset):
          let isStart = snapshotStart && index == startIndex && recordOffset == header.end
          if isStart {
            runActions = actions
          } else if actions != runActions {
            throw parser.error(
              recordOffset,
              .corruptRecord(
                "the snapshot follows \(actions) actions of its run, the files hold \(runActions)"
              ))
          }
          try await event(
            .snapshot(
              state: state, checksum: checksum, file: file, offset: recordOffset,
              isStart: isStart))
        case .keyed(_, _, let recordOffset):
          throw parser.error(
            recordOffset, .corruptRecord("a shared journal's record in a single store's journal"))
        case .rotation:
          guard after == bytes.count else {
            throw parser.error(after, .corruptRecord("bytes after the rotation record"))
          }
          next = .rotated(runID: runID)
          rotated = JournalOpenTail(
            index: index, size: bytes.count, validEnd: bytes.count, runID: header.runID)
        case .end(let checksum, let actions, let dropped, let recordOffset):
          guard after == bytes.count else {
            throw parser.error(after, .corruptRecord("bytes after the end record"))
          }
          guard actions == runActions else {
            throw parser.error(
              recordOffset,
              .corruptRecord(
                "the end record counts \(actions) actions, the files hold \(runActions)"))
          }
          if index < lastIndex {
            try await event(
              .runEnded(
                checksum: dropped == 0 ? checksum : nil, file: file, offset: recordOffset))
            next = .continuation(of: runID)
            continue
          }
          contents.endFile = file
          contents.endOffset = recordOffset
          contents.droppedActions = Int(dropped)
          // Whole, but its writer may have died between its last sync and the truncation
          // that releases its reservation.
          contents.openTail = JournalOpenTail(
            index: index, size: bytes.count, validEnd: bytes.count, runID: header.runID)
          if let checksum, dropped == 0 {
            contents.stateChecksum = checksum
          } else {
            let why =
              dropped > 0
              ? "the recorder dropped \(dropped) actions (size limit or late actions)"
              : "the recorder was finished without a final state"
            contents.unverifiable = parser.error(recordOffset, .noStateChecksum(why))
          }
          return contents
        }
        offset = after
      }
      expectation = next ?? .start
      index += 1
    }
  }
}

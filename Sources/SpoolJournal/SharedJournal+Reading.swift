#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif
import SpoolCore
import SpoolIO

/// One record of one store, read from a shared journal's segment and checked.
enum SharedStoreRecord<State, Action> {
  /// A snapshot: the decoded state, whose checksum matched the recorded one.
  case snapshot(State, checksum: UInt64)
  /// An action, with its enqueue time when the segment's header was read for it.
  case action(Action, enqueuedAt: UInt64?)
}

extension SharedJournal {
  /// Reads one store's records from a shared journal without reducing them: its newest
  /// snapshot (if it has one) and every action after it, with their enqueue times, for
  /// inspection or a replay (``SharedJournalContents/replay(into:pace:)``).
  ///
  /// Reads the records the journal's index names for `id` and nothing of any other store:
  /// the same records ``recover(for:initialState:reducer:)`` reads, plus the header of each
  /// segment they are in (for the enqueue times). Each record is checked against its
  /// checksums and its key, and a snapshot's state against its state checksum. A shared
  /// journal keeps a store's records from its newest snapshot on (older ones are superseded,
  /// and ``compact()`` removes them), so that is where the contents start.
  ///
  /// A store of `id` may be recording meanwhile: what it recorded before the call is written
  /// first (not synced), then read; what it records after is not in the contents.
  ///
  /// Once a write of the journal has failed (a full disk, `EIO`), the journal writes nothing
  /// more, and every `load` of it throws that failure: the records the journal took after the
  /// last successful write never reached the disk, so no read could return what the store
  /// recorded. Close the journal and open it again to read what the disk holds: every store's
  /// records up to the last whole one written.
  ///
  /// - Parameter id: The store's ID.
  /// - Returns: The store's records. A store with no record has none, and the contents
  ///   start from its initial state.
  /// - Throws: ``JournalError``: a record that is damaged or not the one the index names
  ///   (``JournalError/Code/corruptIndex``); a snapshot whose state does not decode or does
  ///   not match its checksum; an action that does not decode; an invalid key; an I/O
  ///   failure, including a failed write of the journal (``JournalError/Code/io``, naming the
  ///   segment the disk refused).
  ///
  /// ```swift
  /// let contents = try await journal.load(42)
  /// let start = contents.startState == nil ? "the initial state" : "a snapshot"
  /// print(contents.actions.count, "actions after", start)
  /// ```
  public func load(_ id: ID) async throws(JournalError) -> SharedJournalContents<State, Action> {
    let name = try checkedKey(id)
    let slot: Int? = sink.core.withLock { $0.slots[name] }
    guard let slot else {
      return SharedJournalContents(
        key: name,
        unverifiable: unverifiable(extents: [], name: name))
    }
    do {
      try await sink.flush()
    } catch {
      throw Self.journalError(error, file: (error as? IOError)?.target.path ?? path)
    }
    while true {
      let (extents, epoch) = sink.core.withLock { ($0.stores[slot].extents, $0.layoutEpoch) }
      var contents = SharedJournalContents<State, Action>(key: name)
      do {
        contents.bytesRead = try await readStore(extents: extents, name: name, withTimes: true) {
          record in
          switch record {
          case .snapshot(let state, let checksum):
            contents.startState = state
            contents.startChecksum = checksum
          case .action(let action, let time):
            contents.actions.append(action)
            contents.enqueueTimes.append(time ?? 0)
          }
        }
      } catch {
        // A compaction copied the records read here and removed their segments meanwhile:
        // read them in their new place.
        guard sink.core.withLock({ $0.layoutEpoch }) != epoch else { throw error }
        continue
      }
      contents.segments = Set(extents.map(\.segment)).count
      if let first = extents.first, first.isSnapshot {
        contents.snapshotFile = JournalFormat.filePath(path, index: Int(first.segment))
        contents.snapshotOffset = Int(first.offset)
      }
      if contents.actions.isEmpty, contents.startChecksum != nil {
        contents.unverifiable = nil
      } else {
        contents.unverifiable = unverifiable(extents: extents, name: name)
      }
      return contents
    }
  }

  /// Why a store whose records are `extents` does not end verified: it has no record, or its
  /// last record is an action.
  func unverifiable(extents: [SharedExtent], name: String) -> JournalError {
    guard let last = extents.last else {
      return JournalError(
        file: path, offset: 0,
        problem: .noStateChecksum("store \(name) has no record: its initial state"))
    }
    return JournalError(
      file: JournalFormat.filePath(path, index: Int(last.segment)), offset: Int(last.offset),
      problem: .noStateChecksum(
        "store \(name)'s records end with an action, not a snapshot (not evicted)"))
  }

  /// Reads and checks the records at `extents`, all of the store `name`, in order, segment by
  /// segment, adjacent records in one read; hands each to `each`. With `withTimes`, reads each
  /// segment's header too, for the actions' enqueue times.
  ///
  /// - Returns: The bytes read.
  func readStore(
    extents: [SharedExtent], name: String, withTimes: Bool,
    _ each: (SharedStoreRecord<State, Action>) throws(JournalError) -> Void
  ) async throws(JournalError) -> Int {
    let key = Array(name.utf8)
    let read = JournalActionEncoding.reader(for: Action.self)
    var bytesRead = 0
    var start = 0
    while start < extents.count {
      // The extents of one segment.
      var end = start + 1
      while end < extents.count, extents[end].segment == extents[start].segment { end += 1 }
      let file = JournalFormat.filePath(path, index: Int(extents[start].segment))
      do {
        let status = try await FileOperations.status(file, engine: engine)
        try JournalFileReading.requireRegular(status.kind, path: file)
        var baseTime: UInt64?
        if withTimes {
          let header = try await JournalFiles.header(
            of: file, engine: engine, version: JournalFormat.sharedVersion)
          baseTime = header.baseTime
          bytesRead += header.end
        }
        let handle = try await IOFile.open(file, on: engine)
        do {
          try await handle.readRuns(of: extents[start..<end], store: name) { run, bytes, from in
            bytesRead += bytes.count
            for extent in run {
              try each(
                Self.record(
                  extent, in: bytes, base: from, file: file, key: key, name: name, read: read,
                  baseTime: baseTime))
            }
          }
          try await handle.close()
        } catch {
          try? await handle.close()
          throw error
        }
      } catch {
        throw Self.journalError(error, file: file)
      }
      start = end
    }
    return bytesRead
  }

  /// Checks the record at `extent` (whose bytes are in `bytes`, which start at byte `base` of
  /// `file`) and decodes it: a snapshot's state, or an action with its enqueue time (with
  /// `baseTime`, the segment's).
  private static func record(
    _ extent: SharedExtent, in bytes: [UInt8], base: Int, file: String, key: [UInt8],
    name: String, read: JournalActionEncoding.Read<Action>?, baseTime: UInt64?
  ) throws(JournalError) -> SharedStoreRecord<State, Action> {
    let offset = Int(extent.offset)
    let local = offset - base
    let recordBytes = Array(bytes[local..<(local + extent.length)])
    let parser = JournalFileParser(
      file: file, bytes: recordBytes, version: JournalFormat.sharedVersion)
    func wrong(_ detail: String) -> JournalError {
      JournalError(
        file: file, offset: offset,
        problem: .corruptIndex("the index names a record of store \(name) here: \(detail)"))
    }
    let parsed: (JournalFileParser.Record, next: Int)?
    do {
      parsed = try parser.record(at: 0)
    } catch {
      // The record's own problem, at its place in the segment.
      throw JournalError(file: file, offset: offset + error.offset, problem: error.problem)
    }
    guard let (record, after) = parsed, after == recordBytes.count,
      case .keyed(let isSnapshot, let payload, _) = record
    else { throw wrong("it is not one record of a store") }
    guard isSnapshot == extent.isSnapshot else {
      throw wrong(
        isSnapshot ? "it is a snapshot, not an action" : "it is an action, not a snapshot")
    }
    guard let (recordKey, body) = SharedJournalIndexFile.key(in: payload, parser: parser),
      recordKey.elementsEqual(key)
    else { throw wrong("it names another store") }
    if isSnapshot {
      guard let checksum = parser.fixed(UInt64.self, at: body) else {
        throw JournalError(
          file: file, offset: offset, problem: .corruptRecord("a malformed snapshot record"))
      }
      let state: State
      do {
        state = try JournalValueDecoder.decode(
          State.self, from: Array(recordBytes[(body + 8)...]))
      } catch {
        throw JournalError(file: file, offset: offset, problem: .undecodableState("\(error)"))
      }
      let replayed: UInt64
      do {
        replayed = try StateChecksum.of(state)
      } catch {
        throw JournalError(file: file, offset: offset, problem: .undecodableState("\(error)"))
      }
      guard replayed == checksum else {
        throw JournalError(
          file: file, offset: offset,
          problem: .stateMismatch(recorded: checksum, replayed: replayed))
      }
      return .snapshot(state, checksum: checksum)
    }
    guard let (delta, actionStart) = parser.varint(at: body, limit: payload.endIndex) else {
      throw JournalError(
        file: file, offset: offset, problem: .corruptRecord("a malformed enqueue time"))
    }
    let action: Action
    do {
      action =
        if let read {
          try JournalRecordReader.read(read, from: recordBytes, in: actionStart..<payload.endIndex)
        } else {
          try JournalValueDecoder.decode(
            Action.self, from: Array(recordBytes[actionStart..<payload.endIndex]))
        }
    } catch {
      throw JournalError(file: file, offset: offset, problem: .undecodableAction("\(error)"))
    }
    // The delta from the segment's base time, zigzag-encoded (as the recorder writes it).
    let signed = Int64(bitPattern: delta >> 1) ^ -Int64(bitPattern: delta & 1)
    return .action(action, enqueuedAt: baseTime.map { $0 &+ UInt64(bitPattern: signed) })
  }
}

/// One store's records in a ``SharedJournal``, read by ``SharedJournal/load(_:)``: the
/// state they start from and the actions after it.
///
/// Replay it into a store made with ``startState`` (or the initial state, when there is no
/// snapshot), whose reducer discards effects:
///
/// ```swift
/// let contents = try await journal.load(42)
/// let store = Store(initialState: contents.startState ?? Cart.State()) {
///   Cart().discardingEffects()
/// }
/// let result = try await contents.replay(into: store)
/// print(result.actions, result.verification)
/// ```
public struct SharedJournalContents<State: Sendable, Action: Codable & Sendable>: Sendable {
  /// The store's key in the journal.
  public var key: String
  /// The state of the store's newest snapshot, where its records start; `nil` when it has
  /// none (its records start from its initial state).
  public var startState: State?
  /// The checksum recorded with ``startState``.
  public var startChecksum: UInt64?
  /// The actions recorded after the snapshot (from the start without one), in the order the
  /// store reduced them.
  public var actions: [Action] = []
  /// Each action's enqueue time (ns on `CLOCK_MONOTONIC` of the recording process).
  public var enqueueTimes: [UInt64] = []
  /// Segments read.
  public var segments = 0
  /// Bytes read: the store's records and the headers of their segments, nothing else.
  public var bytesRead = 0
  /// Why a replay of these records cannot verify the state it ends with (no record, or the
  /// records end with an action: the store was not evicted), naming the segment and byte;
  /// `nil` when they end with a snapshot.
  public var unverifiable: JournalError?
  /// The segment and byte of the snapshot the records start with, named by a state mismatch.
  var snapshotFile: String?
  var snapshotOffset = 0

  init(key: String, unverifiable: JournalError? = nil) {
    self.key = key
    self.unverifiable = unverifiable
  }

  /// Enqueues every action into `store` (at full speed or at the recorded pace), waits until
  /// the store has reduced them and its effects ended, then, when the records end with a
  /// snapshot, compares the checksum of the store's state with it.
  ///
  /// The store should be a fresh one, made with ``startState`` (or the initial state, when it
  /// is `nil`), with a reducer whose effects are discarded
  /// (``SpoolCore/Reducer/discardingEffects()``), as for ``JournalContents/replay(into:pace:)``.
  ///
  /// - Parameters:
  ///   - store: The store to replay into.
  ///   - pace: `.fullSpeed`, or `.recorded(clock)` to enqueue each action when as much time
  ///     has passed on `clock` since the first as had passed when it was recorded.
  /// - Returns: Counts, time taken, and whether the final state was verified.
  /// - Throws: ``JournalError`` with ``JournalError/Code/stateMismatch`` when the store's
  ///   state is not the snapshot the records end with (it was not made with
  ///   ``startState``); `CancellationError` when cancelled while pacing.
  ///
  /// ```swift
  /// let result = try await contents.replay(into: store, pace: .recorded(ContinuousClock()))
  /// ```
  @discardableResult
  public func replay(
    into store: Store<State, Action>, pace: JournalReplayPace = .fullSpeed
  ) async throws -> JournalReplayResult where State: Codable {
    let clock = ContinuousClock()
    let start = clock.now
    try await pace.enqueue(actions, enqueueTimes: enqueueTimes, into: store)
    await store.finish()
    let elapsed = clock.now - start
    let verification: JournalVerification
    if unverifiable == nil, let recorded = startChecksum {
      let replayed = try StateChecksum.of(await store.state)
      guard replayed == recorded else {
        throw JournalError(
          file: snapshotFile ?? key, offset: snapshotOffset,
          problem: .stateMismatch(recorded: recorded, replayed: replayed))
      }
      verification = .verified(checksum: recorded)
    } else {
      verification = .unverified(
        unverifiable
          ?? JournalError(
            file: snapshotFile ?? key, offset: snapshotOffset,
            problem: .noStateChecksum("store \(key)'s records end without a snapshot")))
    }
    return JournalReplayResult(
      actions: actions.count, files: segments, elapsed: elapsed, verification: verification)
  }
}

/// The recording state of a ``JournalRecorder``: the record being encoded, the chunk being
/// filled, and the position in the current file.
///
/// Not generic: the recorder's lock and this state are concrete types, so the hot path looks up
/// no generic metadata per action; the action arrives as a pointer to it, written by the
/// recorder's ``JournalActionEncoding/Erased`` encoder, which knows its type.
///
/// Not thread-safe: the recorder holds it in a mutex, so ``record(_:enqueuedAt:)`` (from
/// whichever thread holds the store) and ``finish(stateChecksum:)`` never overlap.
///
/// Budget of ``record(_:enqueuedAt:)``, the hot path: for an action that adopts
/// ``JournalCodable``, no allocation, no cast and no metadata lookup: one indirect call to its
/// `write(to:)`, stores into the reused record buffer, the payload's CRC and the header's, one
/// copy into the chunk. For a `Codable`-only action, what its `encode(to:)` costs on top (a
/// `KeyedEncodingContainer` box per keyed container, imposed by `Codable`). Chunks are handed
/// to the writer only when full, and come back for reuse, so steady recording allocates
/// nothing else.
final class JournalRecorderCore {
  let configuration: JournalConfiguration
  let writer: JournalWriter
  let runID: UInt64
  /// The run this one continues (0 for a new journal), written in every file's header.
  let previousRunID: UInt64
  let actionType: String
  let encoding: JournalActionEncoding
  /// Writes the action a pointer points to, with `JournalCodable` or `Codable`.
  private let encode: JournalActionEncoder
  private let record = JournalBytes()
  /// ``CRC32/shared``, held here so that sealing a record does not check its lazy
  /// initialization each time.
  private let crc = CRC32.shared
  private let encoder: JournalValueEncoder
  private var chunk: JournalChunk
  /// The file the chunk belongs to, and the bytes that file will hold with the chunk.
  private var fileIndex = 0
  private var fileBytes = 0
  private var fileHasRecords = false
  /// Files started since the first or the last snapshot: what ``JournalConfiguration/maxFiles``
  /// bounds (compaction removes the files before a snapshot).
  private var filesStarted = 0
  /// The file of the last snapshot written, if any.
  private(set) var snapshotFile: Int?
  /// The enqueue time of the last action recorded (the base of the next one's delta).
  private var lastTime: UInt64 = 0
  private(set) var recorded = 0
  /// Actions not recorded: after the size limit was reached, after `finish`, or whose
  /// encoding threw.
  private(set) var dropped = 0
  private(set) var encodingFailure: String?
  private(set) var stoppedAtLimit = false
  private(set) var isFinished = false
  /// Whether a record was added since the last ``flush()``.
  private var unflushed = false

  init<Action: Encodable>(
    for _: Action.Type, configuration: JournalConfiguration, writer: JournalWriter,
    runID: UInt64, start: JournalContinuation = JournalContinuation()
  ) {
    self.configuration = configuration
    self.writer = writer
    self.runID = runID
    previousRunID = start.previousRunID
    actionType = JournalFormat.typeName(Action.self)
    encoding = JournalActionEncoding.of(Action.self)
    encode = JournalActionEncoding.erased(for: Action.self)
    encoder = JournalValueEncoder(into: record)
    chunk = JournalChunk(capacity: configuration.bufferBytes)
    startFile(index: start.index, baseTime: 0)
  }

  private func startFile(index: Int, baseTime: UInt64, flags: UInt8 = 0) {
    let header = JournalFormat.header(
      index: UInt32(index), runID: runID, baseTime: baseTime, actionType: actionType,
      encoding: encoding, previousRunID: previousRunID, flags: flags)
    if chunk.remaining < header.count { submitChunk(minimum: header.count) }
    chunk.fileIndex = index
    chunk.append(header)
    fileIndex = index
    fileBytes = header.count
    fileHasRecords = false
    filesStarted += 1
  }

  /// Hands the chunk to the writer (when it holds anything) and takes an empty one with room
  /// for `minimum` bytes.
  private func submitChunk(minimum: Int) {
    chunk = writer.exchange(
      chunk, minimum: minimum, bufferBytes: configuration.bufferBytes, fileIndex: fileIndex)
  }

  /// Appends the sealed record to the chunk, making room as needed.
  @inline(__always)
  private func appendRecord() {
    if chunk.remaining < record.count { submitChunk(minimum: record.count) }
    chunk.append(record)
    fileBytes += record.count
  }

  /// The size of a rotation record: its header and kind byte.
  private static var rotationRecordBytes: Int { JournalFormat.recordOverhead + 1 }

  /// Records `action`, which must be of the type the core was made for.
  ///
  /// - Returns: Whether it is the first record since the last flush (the timed flush is due
  ///   one interval later).
  @discardableResult
  func record<Action>(_ action: Action, enqueuedAt: UInt64) -> Bool {
    withUnsafePointer(to: action) { record(UnsafeRawPointer($0), enqueuedAt: enqueuedAt) }
  }

  /// Records the action at `action`, which must be of the type the core was made for.
  ///
  /// - Returns: Whether it is the first record since the last flush.
  @discardableResult
  func record(_ action: UnsafeRawPointer, enqueuedAt: UInt64) -> Bool {
    guard !isFinished, !stoppedAtLimit else {
      dropped += 1
      return false
    }
    record.beginRecord(.action)
    let delta = Int64(bitPattern: enqueuedAt &- lastTime)
    record.appendVarint(UInt64(bitPattern: (delta << 1) ^ (delta >> 63)))
    do {
      try encode.encode(action, into: record, encoder: encoder)
    } catch {
      dropped += 1
      if encodingFailure == nil { encodingFailure = "\(error)" }
      return false
    }
    record.sealRecord(using: crc)
    if fileHasRecords
      && fileBytes + record.count + Self.rotationRecordBytes > configuration.maxFileBytes
    {
      guard filesStarted < configuration.maxFiles else {
        stoppedAtLimit = true
        dropped += 1
        return false
      }
      rotate()
    }
    appendRecord()
    fileHasRecords = true
    lastTime = enqueuedAt
    recorded += 1
    if unflushed { return false }
    unflushed = true
    return true
  }

  /// Ends the current file with a rotation record and starts the next one. The action record
  /// in the record buffer is kept: its time delta is relative to `lastTime`, which the new
  /// file's header carries as its base.
  private func rotate(flags: UInt8 = 0) {
    let payload = [JournalFormat.RecordKind.rotation.rawValue]
    let rotation = JournalFormat.recordHeader(payload: payload) + payload
    if chunk.remaining < rotation.count { submitChunk(minimum: rotation.count) }
    chunk.append(rotation)
    submitChunk(minimum: 0)
    startFile(index: fileIndex + 1, baseTime: lastTime, flags: flags)
  }

  /// The number of actions the recorder was handed (recorded or dropped): a snapshot is
  /// written only if no action arrived between this count and the snapshot (see
  /// ``JournalRecorder/snapshot(of:compacting:)``).
  var seen: Int { recorded + dropped }

  /// Ends the current file and starts the next with a snapshot record of a state whose
  /// encoding is `state` and checksum `checksum`; the state must be the one the actions
  /// recorded so far lead to.
  ///
  /// - Returns: The snapshot's file; `nil` after ``finish(stateChecksum:)``.
  func snapshot(state: [UInt8], checksum: UInt64) -> Int? {
    guard !isFinished else { return nil }
    rotate(flags: JournalFormat.startsWithSnapshot)
    // The files before this one are the compaction's to remove: the limit starts again.
    filesStarted = 1
    stoppedAtLimit = false
    record.beginRecord(.snapshot)
    record.appendFixed(checksum)
    record.appendVarint(UInt64(recorded))
    state.withUnsafeBytes { bytes in
      if let base = bytes.baseAddress { record.append(base, count: bytes.count) }
    }
    record.sealRecord(using: crc)
    appendRecord()
    fileHasRecords = true
    snapshotFile = fileIndex
    unflushed = true
    return fileIndex
  }

  /// Whether the chunk being filled holds bytes not handed to the writer yet.
  var hasPendingBytes: Bool { !isFinished && chunk.count > 0 }

  /// Hands the chunk to the writer if it holds anything not handed over yet; a chunk is
  /// written as it is, so the file ends after a whole record (a cut a replay accepts).
  func flush() {
    unflushed = false
    guard !isFinished, chunk.count > 0 else { return }
    submitChunk(minimum: 0)
  }

  /// Appends the end record and hands the last chunk to the writer. Later actions are dropped.
  func finish(stateChecksum: UInt64?) {
    guard !isFinished else { return }
    isFinished = true
    record.beginRecord(.end)
    record.appendFixed(stateChecksum ?? 0)
    record.appendVarint(UInt64(recorded))
    record.appendVarint(UInt64(dropped))
    record.append(stateChecksum == nil ? 0 : JournalFormat.endHasState)
    record.sealRecord(using: crc)
    appendRecord()
    _ = writer.submit(chunk)
  }
}

/// Where a recorder starts: the index of its first file, and the run it continues.
///
/// A new journal starts at file 0 with no run before it; a continued one in the file after the
/// last one present, naming the last run that recovery read.
struct JournalContinuation: Sendable, Hashable {
  var index = 0
  var previousRunID: UInt64 = 0
}

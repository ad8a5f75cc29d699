/// Reads one journal file's bytes: its header, then its records, each checked against its CRC.
///
/// Every read is bounds-checked and every problem a ``JournalError`` naming the file and the
/// byte, so no file (empty, foreign, cut off, corrupted) can crash the reader.
struct JournalFileParser {
  struct Header {
    var version: UInt16
    var index: UInt32
    var runID: UInt64
    var baseTime: UInt64
    var actionType: String
    var encoding: JournalActionEncoding
    /// The run this file's run continues; 0 for a journal's first run.
    var previousRunID: UInt64
    /// Whether the file's first record is a snapshot.
    var startsWithSnapshot: Bool
    /// Whether a shared journal's compaction wrote the segment
    /// (``JournalFormat/compactedSegment``).
    var isCompacted = false
    /// Where the encoding is in the file.
    var encodingOffset: Int
    /// The byte after the header: the first record.
    var end: Int
  }

  enum Record {
    /// An action record's payload after its kind byte, at `offset` in the file.
    case action(payload: ArraySlice<UInt8>, offset: Int)
    case rotation
    case end(checksum: UInt64?, actions: UInt64, dropped: UInt64, offset: Int)
    /// A snapshot: the state's checksum, the run's actions before it, the encoded state.
    case snapshot(checksum: UInt64, actions: UInt64, state: ArraySlice<UInt8>, offset: Int)
    /// A shared journal's record (``JournalFormat/RecordKind/keyedAction`` or
    /// ``JournalFormat/RecordKind/keyedSnapshot``): its payload after the kind byte.
    case keyed(isSnapshot: Bool, payload: ArraySlice<UInt8>, offset: Int)
  }

  let file: String
  let bytes: [UInt8]
  /// The format version the file must have: a single store's journal, or a shared journal's
  /// segment (``JournalFormat/sharedVersion``).
  var version: UInt16 = JournalFormat.version

  func error(_ offset: Int, _ problem: JournalError.Problem) -> JournalError {
    JournalError(file: file, offset: offset, problem: problem)
  }

  func fixed<T: FixedWidthInteger>(_: T.Type, at offset: Int) -> T? {
    let size = MemoryLayout<T>.size
    guard offset >= 0, offset + size <= bytes.count else { return nil }
    var value = T.zero
    for index in 0..<size {
      value |= T(truncatingIfNeeded: bytes[offset + index]) << (8 * index)
    }
    return value
  }

  /// The start of the details of a header that the end of the file cuts short.
  private static let endsInside = "the file ends inside"

  /// Whether `error`, thrown by ``header()``, says the file ends before its header does.
  static func endsInsideHeader(_ error: JournalError) -> Bool {
    if case .corruptHeader(let detail) = error.problem { detail.hasPrefix(endsInside) } else {
      false
    }
  }

  func header() throws(JournalError) -> Header {
    if bytes.isEmpty { throw error(0, .empty) }
    let magic = JournalFormat.magic
    let prefix = Array(bytes.prefix(magic.count))
    guard prefix == Array(magic.prefix(prefix.count)) else { throw error(0, .notAJournal) }
    guard bytes.count >= magic.count else {
      throw error(bytes.count, .corruptHeader("\(Self.endsInside) the magic bytes"))
    }
    let versionOffset = magic.count
    guard let version = fixed(UInt16.self, at: versionOffset) else {
      throw error(bytes.count, .corruptHeader("\(Self.endsInside) the header"))
    }
    // Versions 4 and 5 share the header's layout: the other one of the two is named only once
    // the header's checksum holds, so that a damaged version byte is corruption.
    guard version == JournalFormat.version || version == JournalFormat.sharedVersion else {
      throw error(versionOffset, .unsupportedVersion(found: version, supported: self.version))
    }
    let nameLengthOffset = versionOffset + 2 + 4 + 8 + 8
    guard let index = fixed(UInt32.self, at: versionOffset + 2),
      let runID = fixed(UInt64.self, at: versionOffset + 6),
      let baseTime = fixed(UInt64.self, at: versionOffset + 14),
      let nameLength = fixed(UInt16.self, at: nameLengthOffset),
      let encodingKind = fixed(UInt8.self, at: nameLengthOffset + 2 + Int(nameLength)),
      let layout = fixed(UInt32.self, at: nameLengthOffset + 3 + Int(nameLength)),
      let previousRunID = fixed(UInt64.self, at: nameLengthOffset + 7 + Int(nameLength)),
      let flags = fixed(UInt8.self, at: nameLengthOffset + 15 + Int(nameLength)),
      let crc = fixed(UInt32.self, at: nameLengthOffset + 16 + Int(nameLength))
    else {
      throw error(bytes.count, .corruptHeader("\(Self.endsInside) the header"))
    }
    let encodingOffset = nameLengthOffset + 2 + Int(nameLength)
    let crcOffset = encodingOffset + 14
    guard CRC32.checksum(bytes[0..<crcOffset]) == crc else {
      throw error(crcOffset, .corruptHeader("its bytes do not match its checksum"))
    }
    guard version == self.version else {
      throw error(
        versionOffset,
        .foreignFile(
          version == JournalFormat.sharedVersion
            ? "a segment of a shared journal (version \(version)): open it with SharedJournal"
            : "a single store's journal (version \(version)): open it with ActionJournal"))
    }
    let nameBytes = bytes[(nameLengthOffset + 2)..<encodingOffset]
    guard let actionType = String(validating: nameBytes, as: UTF8.self) else {
      throw error(nameLengthOffset + 2, .corruptHeader("the action type is not UTF-8"))
    }
    guard let encoding = JournalActionEncoding(kind: encodingKind, layout: layout) else {
      throw error(encodingOffset, .corruptHeader("unknown action encoding \(encodingKind)"))
    }
    return Header(
      version: version, index: index, runID: runID, baseTime: baseTime,
      actionType: actionType, encoding: encoding, previousRunID: previousRunID,
      startsWithSnapshot: flags & JournalFormat.startsWithSnapshot != 0,
      isCompacted: flags & JournalFormat.compactedSegment != 0,
      encodingOffset: encodingOffset,
      end: crcOffset + 4)
  }

  /// The record at `offset`, and the offset after it; `nil` at the end of the file.
  ///
  /// A record cut off by the end of the file is ``JournalError/Code/cutOff``: what a
  /// write that failed partway (a full disk, a killed process) leaves, since a short write
  /// keeps a prefix of its bytes. A header whose bytes are all there but do not match its own
  /// checksum, and a whole record that does not match its payload's, are
  /// ``JournalError/Code/corruptRecord``: a damaged length never passes for a cut.
  func record(at offset: Int) throws(JournalError) -> (Record, next: Int)? {
    if offset == bytes.count { return nil }
    let checked = JournalFormat.recordHeaderChecked
    guard let length = fixed(UInt32.self, at: offset), let crc = fixed(UInt32.self, at: offset + 4),
      let headerCRC = fixed(UInt32.self, at: offset + checked)
    else {
      let present = bytes.count - offset
      throw error(
        offset,
        .cutOff(
          "the file ends inside a record's header"
            + " (\(present) of its \(JournalFormat.recordOverhead) bytes)"))
    }
    guard CRC32.checksum(bytes[offset..<(offset + checked)]) == headerCRC else {
      throw error(
        offset, .corruptRecord("its header (length \(length)) does not match its checksum"))
    }
    guard length > 0, Int(length) <= JournalFormat.maxPayload else {
      throw error(offset, .corruptRecord("impossible length \(length)"))
    }
    let start = offset + JournalFormat.recordOverhead
    let end = start + Int(length)
    guard end <= bytes.count else {
      let present = max(0, bytes.count - start)
      throw error(
        offset, .cutOff("the file ends inside a record (\(present) of its \(length) bytes)"))
    }
    let payload = bytes[start..<end]
    guard CRC32.checksum(payload) == crc else {
      throw error(offset, .corruptRecord("its bytes do not match its checksum"))
    }
    switch JournalFormat.RecordKind(rawValue: payload[start]) {
    case .action:
      return (.action(payload: payload.dropFirst(), offset: offset), end)
    case .rotation:
      return (.rotation, end)
    case .end:
      let body = start + 1
      guard body + 8 <= end, let checksum = fixed(UInt64.self, at: body),
        let (actions, afterActions) = varint(at: body + 8, limit: end),
        let (dropped, afterDropped) = varint(at: afterActions, limit: end),
        afterDropped + 1 == end
      else {
        throw error(offset, .corruptRecord("a malformed end record"))
      }
      let hasState = bytes[afterDropped] & JournalFormat.endHasState != 0
      let record = Record.end(
        checksum: hasState ? checksum : nil, actions: actions, dropped: dropped, offset: offset)
      return (record, end)
    case .snapshot:
      let body = start + 1
      guard body + 8 <= end, let checksum = fixed(UInt64.self, at: body),
        let (actions, state) = varint(at: body + 8, limit: end)
      else {
        throw error(offset, .corruptRecord("a malformed snapshot record"))
      }
      let record = Record.snapshot(
        checksum: checksum, actions: actions, state: bytes[state..<end], offset: offset)
      return (record, end)
    case .keyedAction:
      return (.keyed(isSnapshot: false, payload: payload.dropFirst(), offset: offset), end)
    case .keyedSnapshot:
      return (.keyed(isSnapshot: true, payload: payload.dropFirst(), offset: offset), end)
    case nil:
      throw error(offset, .corruptRecord("unknown record kind \(payload[start])"))
    }
  }

  func varint(at offset: Int, limit: Int) -> (UInt64, Int)? {
    var value: UInt64 = 0
    var shift: UInt64 = 0
    var position = offset
    while position < limit, shift < 64 {
      let byte = bytes[position]
      position += 1
      value |= UInt64(byte & 0x7F) << shift
      if byte & 0x80 == 0 { return (value, position) }
      shift += 7
    }
    return nil
  }
}

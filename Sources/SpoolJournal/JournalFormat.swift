/// The layout of a journal file: constants, the header, and the record kinds.
///
/// ```
/// header:  "SPOOLJNL"  version:u16  file index:u32  run id:u64  base time:u64
///          action type name (u16 length, UTF-8)  action encoding:u8  layout version:u32
///          previous run id:u64  flags:u8  CRC-32 of the above:u32
/// record:  payload length:u32  CRC-32 of the payload:u32  CRC-32 of the 8 bytes before:u32
///          payload
/// payload: kind:u8, then for an action: enqueue-time delta (zigzag varint, ns) and the action
///          (JournalValueEncoder, or the action's JournalCodable layout, as the header says);
///          for the end: state checksum:u64, actions:varint,
///          dropped:varint, flags:u8; for a rotation: nothing; for a snapshot: state
///          checksum:u64, the run's actions before it:varint, the state (JournalValueEncoder)
/// ```
///
/// All fixed-width integers are little-endian. A file holds the header and then whole
/// records; each file of a rotated journal starts with its own header, so it can be read
/// alone, and ends with a rotation record (the same run goes on in the next file), the end
/// record, or a cut (the recorder was killed). A run is one recorder's files; a recorder that
/// continues a journal starts a new run in the next file, whose header names the run before
/// it (previous run id; 0 for a journal's first run). A snapshot is always the first record
/// of its file, whose header says so (`startsWithSnapshot`), so that recovery finds the
/// newest one from the headers alone and never appends after a torn tail.
enum JournalFormat {
  static let magic: [UInt8] = Array("SPOOLJNL".utf8)
  /// The version this code writes and reads. Version 4 added runs (the previous run id) and
  /// snapshots (the header's flags, the snapshot record); version 3 gave each record header a
  /// checksum of its own, so that a damaged length is told apart from a cut; version 2 added
  /// the action encoding to the header. Files of other versions are not read: loading one
  /// fails with ``JournalError/Code/unsupportedVersion``, naming both.
  static let version: UInt16 = 4
  /// The version of a ``SharedJournal``'s segments: the same header and record framing, with
  /// records that name their store (kinds 5 and 6). Each reader accepts its own version only
  /// and names the other (a shared segment given to ``ActionJournal``, or the reverse).
  static let sharedVersion: UInt16 = 5
  /// The largest record payload a reader accepts: a larger length is corruption, not a record.
  static let maxPayload = 64 << 20
  /// Bytes before a record's payload: its length, its payload's CRC and the header's own CRC.
  static let recordOverhead = 12
  /// Bytes of a record header that its own CRC covers: the length and the payload's CRC.
  static let recordHeaderChecked = 8

  /// Where the header's fields are (the action type's name follows its 2-byte length).
  static let versionOffset = 8
  static let indexOffset = 10
  static let runIDOffset = 14
  static let actionTypeOffset = 32

  enum RecordKind: UInt8 {
    case action = 1
    case rotation = 2
    case end = 3
    case snapshot = 4
    /// A shared journal's action: the store's key (varint length, UTF-8), the enqueue time
    /// relative to the segment's base time (zigzag varint, ns), the action.
    case keyedAction = 5
    /// A shared journal's snapshot: the store's key, the state checksum:u64, the state.
    case keyedSnapshot = 6
  }

  /// The header's flag: the file's first record is a snapshot.
  static let startsWithSnapshot: UInt8 = 1

  /// The header's flag in a shared journal's segment: a compaction wrote it, and each store's
  /// records in it supersede that store's records in every earlier segment (which a crash may
  /// have left in place: they are then skipped, never replayed twice).
  static let compactedSegment: UInt8 = 2

  /// The end record's flag: the recorder was given the final state, whose checksum it holds.
  static let endHasState: UInt8 = 1

  /// The file at `index` of the journal at `path`: `path.index.journal`.
  static func filePath(_ path: String, index: Int) -> String {
    "\(path).\(index).journal"
  }

  /// The index of `name` when it names a file of the journal whose base name is `base`
  /// (`base.N.journal`, N decimal without leading zeros), else `nil`.
  static func fileIndex(of name: String, base: String) -> Int? {
    let prefix = base + "."
    let suffix = ".journal"
    guard name.hasPrefix(prefix), name.hasSuffix(suffix),
      name.utf8.count > prefix.utf8.count + suffix.utf8.count
    else { return nil }
    let digits = name.dropFirst(prefix.count).dropLast(suffix.count)
    guard digits.allSatisfy({ $0.isASCII && $0.isNumber }),
      digits.count == 1 || digits.first != "0", let index = Int(digits), index <= Int(UInt32.max)
    else { return nil }
    return index
  }

  /// The header of file `index` of run `runID`.
  ///
  /// The base time is the enqueue time (ns) that the first record's delta is relative to.
  static func header(
    index: UInt32, runID: UInt64, baseTime: UInt64, actionType: String,
    encoding: JournalActionEncoding, previousRunID: UInt64 = 0, flags: UInt8 = 0,
    version: UInt16 = JournalFormat.version
  ) -> [UInt8] {
    let name = Array(actionType.utf8.prefix(Int(UInt16.max)))
    var bytes = magic
    bytes.append(contentsOf: littleEndian(version))
    bytes.append(contentsOf: littleEndian(index))
    bytes.append(contentsOf: littleEndian(runID))
    bytes.append(contentsOf: littleEndian(baseTime))
    bytes.append(contentsOf: littleEndian(UInt16(name.count)))
    bytes.append(contentsOf: name)
    bytes.append(encoding.kind)
    bytes.append(contentsOf: littleEndian(encoding.layout))
    bytes.append(contentsOf: littleEndian(previousRunID))
    bytes.append(flags)
    bytes.append(contentsOf: littleEndian(CRC32.checksum(bytes)))
    return bytes
  }

  /// The 12-byte header of a record whose payload is `payload`.
  static func recordHeader(payload: [UInt8]) -> [UInt8] {
    var bytes = littleEndian(UInt32(payload.count))
    bytes += littleEndian(CRC32.checksum(payload))
    bytes += littleEndian(CRC32.checksum(bytes))
    return bytes
  }

  static func littleEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
    (0..<MemoryLayout<T>.size).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
  }

  /// The name a journal records for `Action` and checks on replay.
  static func typeName<Action>(_: Action.Type) -> String {
    String(reflecting: Action.self)
  }
}

extension JournalBytes {
  /// Fills in the header of the record this buffer holds (its first
  /// ``JournalFormat/recordOverhead`` bytes left for it): the payload's length, the payload's
  /// CRC, and the CRC of those eight bytes. `crc` is the caller's copy of ``CRC32/shared``.
  @inline(__always)
  func sealRecord(using crc: CRC32.Tables) {
    let payload = count - JournalFormat.recordOverhead
    setFixed(UInt32(payload), at: 0)
    setFixed(crc.checksum(pointer + JournalFormat.recordOverhead, count: payload), at: 4)
    let headerCRC = crc.checksum(pointer, count: JournalFormat.recordHeaderChecked)
    setFixed(headerCRC, at: JournalFormat.recordHeaderChecked)
  }
}

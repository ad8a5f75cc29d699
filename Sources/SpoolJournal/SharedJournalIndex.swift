import SpoolIO

/// One record of one store in a ``SharedJournal``'s segment: where it is and whether it is a
/// snapshot. 12 bytes in memory; a segment is at most 1 GiB, so the offset fits 32 bits.
struct SharedExtent: Hashable, Sendable {
  var segment: UInt32
  var offset: UInt32
  /// The record's length with its 12-byte header, shifted left once; the low bit is set for a
  /// snapshot.
  var lengthAndKind: UInt32

  init(segment: Int, offset: Int, length: Int, isSnapshot: Bool) {
    self.segment = UInt32(truncatingIfNeeded: segment)
    self.offset = UInt32(truncatingIfNeeded: offset)
    lengthAndKind = UInt32(truncatingIfNeeded: length) << 1 | (isSnapshot ? 1 : 0)
  }

  var length: Int { Int(lengthAndKind >> 1) }
  var isSnapshot: Bool { lengthAndKind & 1 != 0 }
  var end: Int { Int(offset) + length }
}

/// The records of one segment, by store, in the order the stores first appear in it.
struct SharedSegmentStores {
  var keys: [String] = []
  var extents: [[SharedExtent]] = []
  private var positions: [String: Int] = [:]

  mutating func add(_ key: String, _ extent: SharedExtent) {
    if let position = positions[key] {
      extents[position].append(extent)
    } else {
      positions[key] = keys.count
      keys.append(key)
      extents.append([extent])
    }
  }

  mutating func append(_ key: String, _ storeExtents: [SharedExtent]) {
    positions[key] = keys.count
    keys.append(key)
    extents.append(storeExtents)
  }
}

/// The index file of a shared journal's segment `N`: `path.N.index`, next to `path.N.journal`.
///
/// ```
/// "SPOOLIDX"  version:u16  segment:u32  segment's run id:u64  segment's length:u64
/// stores:varint, per store: key (varint length, UTF-8)  records:varint,
///   per record: offset minus the store's previous record's offset (varint),
///               record length << 1 | is-snapshot (varint)
/// CRC-32 of all the above:u32
/// ```
///
/// It is written once its segment is sealed (rotated past, or closed) and synced, atomically
/// (a temporary file, synced, renamed, the folder synced), so a torn index file is corruption,
/// never a crash artefact. It is used only when its segment's header has the run id and its
/// file the length it names: otherwise it is stale (the segment was cut by a crash, or is
/// another run's), and the segment is scanned instead. A damaged index is reported
/// (``JournalError/Code/corruptIndex``), not silently rebuilt.
enum SharedJournalIndexFile {
  static let magic: [UInt8] = Array("SPOOLIDX".utf8)
  static let version: UInt16 = 1

  static func path(_ path: String, segment: Int) -> String { "\(path).\(segment).index" }

  struct Contents {
    var segment: Int
    var runID: UInt64
    var segmentBytes: Int
    var stores: SharedSegmentStores
  }

  static func encode(
    segment: Int, runID: UInt64, segmentBytes: Int, stores: SharedSegmentStores
  ) -> [UInt8] {
    let bytes = JournalBytes(capacity: 64 + stores.keys.count * 16)
    for byte in magic { bytes.append(byte) }
    bytes.appendFixed(version)
    bytes.appendFixed(UInt32(truncatingIfNeeded: segment))
    bytes.appendFixed(runID)
    bytes.appendFixed(UInt64(segmentBytes))
    bytes.appendVarint(UInt64(stores.keys.count))
    for (key, extents) in zip(stores.keys, stores.extents) {
      bytes.appendString(key)
      bytes.appendVarint(UInt64(extents.count))
      var previous: UInt32 = 0
      for extent in extents {
        bytes.appendVarint(UInt64(extent.offset &- previous))
        bytes.appendVarint(UInt64(extent.lengthAndKind))
        previous = extent.offset
      }
    }
    var result = bytes.bytes
    result.append(contentsOf: JournalFormat.littleEndian(CRC32.checksum(result)))
    return result
  }

  /// The index in `bytes`, read from `file`; every problem is a
  /// ``JournalError/Code/corruptIndex`` naming the byte.
  static func decode(_ bytes: [UInt8], file: String) throws(JournalError) -> Contents {
    let parser = JournalFileParser(file: file, bytes: bytes)
    func corrupt(_ offset: Int, _ detail: String) -> JournalError {
      JournalError(file: file, offset: offset, problem: .corruptIndex(detail))
    }
    let fixedEnd = magic.count + 2 + 4 + 8 + 8
    guard bytes.count >= fixedEnd + 1 + 4 else {
      throw corrupt(bytes.count, "the file ends inside its header (\(bytes.count) bytes)")
    }
    guard Array(bytes.prefix(magic.count)) == magic else {
      throw corrupt(0, "not a shared journal's index (no SPOOLIDX magic)")
    }
    let crcOffset = bytes.count - 4
    guard let crc = parser.fixed(UInt32.self, at: crcOffset),
      CRC32.checksum(bytes[0..<crcOffset]) == crc
    else { throw corrupt(crcOffset, "its bytes do not match its checksum") }
    guard let version = parser.fixed(UInt16.self, at: magic.count), version == Self.version
    else {
      throw corrupt(magic.count, "index version \(parser.fixed(UInt16.self, at: 8) ?? 0)"
        + ", this Spool reads index version \(Self.version)")
    }
    guard let segment = parser.fixed(UInt32.self, at: 10),
      let runID = parser.fixed(UInt64.self, at: 14),
      let segmentBytes = parser.fixed(UInt64.self, at: 22), segmentBytes <= UInt64(Int32.max)
    else { throw corrupt(10, "a malformed header") }
    var position = fixedEnd
    func varint() throws(JournalError) -> UInt64 {
      guard let (value, next) = parser.varint(at: position, limit: crcOffset) else {
        throw corrupt(position, "a malformed number")
      }
      position = next
      return value
    }
    let storeCount = try varint()
    guard storeCount <= UInt64(crcOffset - position) else {
      throw corrupt(position, "\(storeCount) stores in \(crcOffset - position) bytes")
    }
    var stores = SharedSegmentStores()
    for _ in 0..<storeCount {
      let keyOffset = position
      let keyLength = try varint()
      guard keyLength > 0, keyLength <= UInt64(crcOffset - position) else {
        throw corrupt(keyOffset, "a key of \(keyLength) bytes")
      }
      let keyEnd = position + Int(keyLength)
      let key = String(decoding: bytes[position..<keyEnd], as: UTF8.self)
      position = keyEnd
      let countOffset = position
      let count = try varint()
      guard count > 0, count <= UInt64(crcOffset - position) else {
        throw corrupt(countOffset, "\(count) records for store \(key)")
      }
      var extents: [SharedExtent] = []
      extents.reserveCapacity(Int(count))
      var previous: UInt64 = 0
      for _ in 0..<count {
        let extentOffset = position
        let offset = previous + (try varint())
        let lengthAndKind = try varint()
        let length = lengthAndKind >> 1
        guard offset + length <= segmentBytes, length > UInt64(JournalFormat.recordOverhead)
        else {
          throw corrupt(
            extentOffset,
            "a record of store \(key) at byte \(offset), \(length) bytes, outside the segment's"
              + " \(segmentBytes) bytes")
        }
        extents.append(
          SharedExtent(
            segment: Int(segment), offset: Int(offset), length: Int(length),
            isSnapshot: lengthAndKind & 1 != 0))
        previous = offset
      }
      stores.append(key, extents)
    }
    guard position == crcOffset else {
      throw corrupt(position, "\(crcOffset - position) bytes after the last store")
    }
    return Contents(
      segment: Int(segment), runID: runID, segmentBytes: Int(segmentBytes), stores: stores)
  }

  /// The key a keyed record's payload (after its kind byte) names, and where its body starts.
  static func key(
    in payload: ArraySlice<UInt8>, parser: JournalFileParser
  ) -> (key: ArraySlice<UInt8>, body: Int)? {
    guard let (length, start) = parser.varint(at: payload.startIndex, limit: payload.endIndex),
      length > 0, length <= UInt64(payload.endIndex - start)
    else { return nil }
    let end = start + Int(length)
    return (parser.bytes[start..<end], end)
  }

  /// Scans a whole segment: the records of each store, and the cut that ends it if it was
  /// not sealed (a crash, or a full disk).
  ///
  /// - Throws: ``JournalError`` for a damaged header or record, a record of a single store's
  ///   journal, or bytes after a rotation record.
  static func scan(
    _ bytes: [UInt8], file: String, segment: Int, header: JournalFileParser.Header
  ) throws(JournalError) -> (stores: SharedSegmentStores, cut: JournalError?) {
    let parser = JournalFileParser(file: file, bytes: bytes, version: JournalFormat.sharedVersion)
    var stores = SharedSegmentStores()
    var offset = header.end
    while true {
      let parsed: (JournalFileParser.Record, next: Int)?
      do {
        parsed = try parser.record(at: offset)
      } catch {
        guard case .cutOff = error.problem else { throw error }
        return (stores, error)
      }
      guard let (record, after) = parsed else { return (stores, nil) }
      switch record {
      case .keyed(let isSnapshot, let payload, let recordOffset):
        guard let (key, _) = Self.key(in: payload, parser: parser) else {
          throw parser.error(recordOffset, .corruptRecord("a malformed store key"))
        }
        stores.add(
          String(decoding: key, as: UTF8.self),
          SharedExtent(
            segment: segment, offset: recordOffset, length: after - recordOffset,
            isSnapshot: isSnapshot))
      case .rotation:
        guard after == bytes.count else {
          throw parser.error(after, .corruptRecord("bytes after the rotation record"))
        }
        return (stores, nil)
      case .action, .end, .snapshot:
        throw parser.error(
          offset, .corruptRecord("a single store's record in a shared journal's segment"))
      }
      offset = after
    }
  }
}

extension IOFile {
  /// Reads the records at `extents` (all in this segment file, in order), adjacent ones in one
  /// read, and calls `body` with each run of adjacent extents, the run's bytes and the byte
  /// they start at.
  ///
  /// - Throws: ``JournalError`` with ``JournalError/Problem/corruptIndex(_:)`` when the file
  ///   ends before a run does (the index names records the segment does not hold), naming
  ///   `store`; what reading throws; `CancellationError`; what `body` throws.
  func readRuns(
    of extents: ArraySlice<SharedExtent>, store: String,
    _ body: (ArraySlice<SharedExtent>, _ bytes: [UInt8], _ from: Int) throws -> Void
  ) async throws {
    var index = extents.startIndex
    while index < extents.endIndex {
      var runEnd = index + 1
      while runEnd < extents.endIndex, extents[runEnd].offset == UInt32(extents[runEnd - 1].end) {
        runEnd += 1
      }
      let from = Int(extents[index].offset)
      let count = extents[runEnd - 1].end - from
      var bytes: [UInt8] = []
      bytes.reserveCapacity(count)
      while bytes.count < count {
        try Task.checkCancellation()
        let chunk = try await read(upTo: count - bytes.count, at: UInt64(from + bytes.count))
        if chunk.isEmpty { break }
        bytes.append(contentsOf: chunk)
      }
      guard bytes.count == count else {
        throw JournalError(
          file: path, offset: from + bytes.count,
          problem: .corruptIndex(
            "the index names records of store \(store) up to byte \(from + count);"
              + " the segment ends at byte \(from + bytes.count)"))
      }
      try body(extents[index..<runEnd], bytes, from)
      index = runEnd
    }
  }
}

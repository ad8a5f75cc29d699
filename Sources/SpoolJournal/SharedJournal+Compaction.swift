#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif
import SpoolCore
import SpoolIO
import Synchronization

/// The steps of ``SharedJournal/compact()`` after which a test stops it, as a crash or an I/O
/// failure there would.
enum SharedJournalCompactionStep: Sendable, Hashable {
  /// The segment being filled is sealed and synced, the copies' segment number set aside.
  case planned
  /// The copies' segment is in place (synced, renamed, the folder synced), without an index.
  case copied
  /// Its index file is written; no segment is removed yet.
  case indexed
  /// The first old segment is removed.
  case removedOne
}

extension SharedJournal {
  /// Removes the sealed segments (and their index files) that no store needs any more, first
  /// copying forward the records that stores still need out of them.
  ///
  /// A sealed segment is needed while a store's newest snapshot, or an action after it, is in
  /// it. When one is, `compact()` seals the segment being filled and writes a new segment of
  /// copies: for every store with records, its newest snapshot and the actions after it (or
  /// all its actions, if it has no snapshot), checked against their checksums, in their order.
  /// That segment is written to a temporary file, synced, renamed into place, and indexed
  /// before any old segment is removed; its header marks it as a compaction's, so its records
  /// replace each store's earlier ones. A crash at any point therefore leaves every record at
  /// least once, and recovery never applies one twice. Later records go to the segment after
  /// the copies. Stores keep recording meanwhile; a store that writes a snapshot during the
  /// compaction keeps its snapshot.
  ///
  /// The cost is the bytes of every store's records from its newest snapshot on, read and
  /// written once more, held in memory while the copies are written, plus two syncs and two
  /// renames: a store that is never evicted has no snapshot, and all of its actions are copied
  /// each time. One compaction copies at most about 1 GiB (a segment's limit): the stores
  /// whose records would take the copies past it stay where they are, with the segments they
  /// need, until a later compaction (whose copies they fit in, once the others' are smaller).
  /// A call while another compaction runs returns at once, removing nothing.
  ///
  /// - Returns: The segments removed.
  /// - Throws: ``JournalError`` for a record that is damaged or not the one its index names;
  ///   the `IOError` of a read, write, sync or removal; ``JournalError/Code/storeBusy`` after
  ///   ``close()``. Nothing is removed before the records it holds are copied, so a failure
  ///   loses nothing. A ``close()`` during a compaction waits for it to end.
  ///
  /// ```swift
  /// let removed = try await journal.compact()
  /// ```
  @discardableResult
  public func compact() async throws -> [Int] {
    let started = sink.core.withLock { core -> Bool? in
      guard !core.isFinished else { return nil }
      guard !core.isCompacting else { return false }
      core.isCompacting = true
      return true
    }
    guard let started else {
      throw JournalError(
        file: path, offset: 0, problem: .storeBusy("the shared journal is closed"))
    }
    guard started else { return [] }
    defer {
      let waiters = sink.core.withLock { core in
        core.isCompacting = false
        defer { core.compactionWaiters.removeAll() }
        return core.compactionWaiters
      }
      for waiter in waiters { waiter.resume() }
    }
    let limit = sink.compactionCopyLimit.load(ordering: .relaxed)
    let plan = sink.core.withLock { $0.planCompaction(limit: limit) }
    if let plan {
      sink.handle(plan.due)
      try await sink.writer.waitUntilDurable(through: plan.through)
      try reach(.planned)
      try await copyForward(plan)
    }
    return try await removeUnneededSegments()
  }

  private func reach(_ step: SharedJournalCompactionStep) throws {
    try sink.compactionFault.withLock { $0 }?(step)
  }

  /// Removes the sealed segments that no store needs, once the records that make them
  /// unneeded are synced.
  private func removeUnneededSegments() async throws -> [Int] {
    let (removable, through) = sink.core.withLock { core in
      (core.removableSegments(), sink.writer.submittedChunks + (core.hasPendingBytes ? 1 : 0))
    }
    guard !removable.isEmpty else { return [] }
    try await sink.writer.waitUntilDurable(through: through)
    // An index written after its segment is removed would be left behind.
    await sink.waitForSeals()
    for segment in removable {
      // The segment first: an index left without its segment is never read.
      try await FileOperations.removeFile(
        JournalFormat.filePath(path, index: segment), engine: engine)
      do {
        try await FileOperations.removeFile(
          SharedJournalIndexFile.path(path, segment: segment), engine: engine)
      } catch let error as IOError where error.errno == ENOENT {}
      sink.core.withLock { core in
        core.segmentSlots.removeValue(forKey: segment)
        core.compactedSegments.remove(segment)
      }
      if segment == removable.first { try reach(.removedOne) }
    }
    try await JournalFiles.syncFolder(of: path, engine: engine)
    return removable
  }

  /// Writes the segment of `plan`'s copies, and its index, then points the stores at it.
  private func copyForward(_ plan: SharedJournalCore.CompactionPlan) async throws {
    let segments = Set(plan.copies.flatMap { $0.extents.map(\.segment) }).sorted()
    var baseTimes: [UInt32: UInt64] = [:]
    for segment in segments {
      let file = JournalFormat.filePath(path, index: Int(segment))
      do {
        baseTimes[segment] = try await JournalFiles.header(
          of: file, engine: engine, version: JournalFormat.sharedVersion
        ).baseTime
      } catch {
        throw Self.journalError(error, file: file)
      }
    }
    let baseTime = segments.first.flatMap { baseTimes[$0] } ?? 0
    // Each store's records, in order: segments ascending, and a store's extents are in
    // segment order.
    var records = [[[UInt8]]](repeating: [], count: plan.copies.count)
    for segment in segments {
      let file = JournalFormat.filePath(path, index: Int(segment))
      do {
        try await readCopies(
          plan, segment: segment, file: file, baseTime: baseTimes[segment] ?? 0,
          newBaseTime: baseTime, into: &records)
      } catch {
        throw Self.journalError(error, file: file)
      }
    }
    let runID = UInt64.random(in: 1...UInt64.max)
    var bytes = JournalFormat.header(
      index: UInt32(plan.segment), runID: runID, baseTime: baseTime,
      actionType: sink.core.withLock { $0.actionType },
      encoding: sink.core.withLock { $0.encoding }, flags: JournalFormat.compactedSegment,
      version: JournalFormat.sharedVersion)
    var stores = SharedSegmentStores()
    var installs: [(slot: Int, old: [SharedExtent], new: [SharedExtent])] = []
    for (copy, copied) in zip(plan.copies, records) {
      var extents: [SharedExtent] = []
      extents.reserveCapacity(copied.count)
      for (record, old) in zip(copied, copy.extents) {
        extents.append(
          SharedExtent(
            segment: plan.segment, offset: bytes.count, length: record.count,
            isSnapshot: old.isSnapshot))
        bytes.append(contentsOf: record)
      }
      stores.append(String(decoding: copy.key, as: UTF8.self), extents)
      installs.append((copy.slot, copy.extents, extents))
    }
    try await FileOperations.writeFileAtomically(
      JournalFormat.filePath(path, index: plan.segment), bytes, engine: engine)
    try reach(.copied)
    // Best effort, as for every index: without it, the next open scans the segment.
    let index = SharedJournalIndexFile.encode(
      segment: plan.segment, runID: runID, segmentBytes: bytes.count, stores: stores)
    try? await FileOperations.writeFileAtomically(
      SharedJournalIndexFile.path(path, segment: plan.segment), index, engine: engine)
    try reach(.indexed)
    sink.core.withLock { $0.installCopies(segment: plan.segment, installs) }
  }

  /// Reads the records of `plan`'s stores in `segment` (adjacent ones in one read), checks
  /// each, and appends it, retimed to `newBaseTime`, to its store's records.
  private func readCopies(
    _ plan: SharedJournalCore.CompactionPlan, segment: UInt32, file: String, baseTime: UInt64,
    newBaseTime: UInt64, into records: inout [[[UInt8]]]
  ) async throws {
    let status = try await FileOperations.status(file, engine: engine)
    try JournalFileReading.requireRegular(status.kind, path: file)
    let handle = try await IOFile.open(file, on: engine)
    do {
      for (position, copy) in plan.copies.enumerated() {
        let extents = copy.extents.filter { $0.segment == segment }
        let name = String(decoding: copy.key, as: UTF8.self)
        try await handle.readRuns(of: extents[...], store: name) { run, bytes, from in
          for extent in run {
            let local = Int(extent.offset) - from
            records[position].append(
              try Self.copy(
                Array(bytes[local..<(local + extent.length)]), of: extent, file: file,
                key: copy.key, name: name, baseTime: baseTime, newBaseTime: newBaseTime))
          }
        }
      }
      try await handle.close()
    } catch {
      try? await handle.close()
      throw error
    }
  }

  /// The record `bytes` (at `extent` of `file`) checked as the store's, as it is in a segment
  /// whose base time is `newBaseTime`: an action's time delta is rewritten, a snapshot is
  /// unchanged.
  static func copy(
    _ bytes: [UInt8], of extent: SharedExtent, file: String, key: [UInt8], name: String,
    baseTime: UInt64, newBaseTime: UInt64
  ) throws(JournalError) -> [UInt8] {
    let offset = Int(extent.offset)
    let parser = JournalFileParser(file: file, bytes: bytes, version: JournalFormat.sharedVersion)
    let parsed: (JournalFileParser.Record, next: Int)?
    do {
      parsed = try parser.record(at: 0)
    } catch {
      throw JournalError(file: file, offset: offset + error.offset, problem: error.problem)
    }
    guard let (record, after) = parsed, after == bytes.count,
      case .keyed(let isSnapshot, let payload, _) = record, isSnapshot == extent.isSnapshot,
      let (recordKey, body) = SharedJournalIndexFile.key(in: payload, parser: parser),
      recordKey.elementsEqual(key)
    else {
      throw JournalError(
        file: file, offset: offset,
        problem: .corruptIndex("the index names a record of store \(name) here; it is not"))
    }
    if isSnapshot { return bytes }
    guard let (zigzag, actionStart) = parser.varint(at: body, limit: payload.endIndex) else {
      throw JournalError(
        file: file, offset: offset, problem: .corruptRecord("a malformed enqueue time"))
    }
    let delta = Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1)
    let time = baseTime &+ UInt64(bitPattern: delta)
    let newDelta = Int64(bitPattern: time &- newBaseTime)
    let encoded = JournalBytes(capacity: bytes.count + 10)
    encoded.append(JournalFormat.RecordKind.keyedAction.rawValue)
    for byte in bytes[payload.startIndex..<body] { encoded.append(byte) }
    encoded.appendVarint(UInt64(bitPattern: (newDelta << 1) ^ (newDelta >> 63)))
    for byte in bytes[actionStart..<payload.endIndex] { encoded.append(byte) }
    let newPayload = encoded.bytes
    return JournalFormat.recordHeader(payload: newPayload) + newPayload
  }
}

/// The writing state of a ``SharedJournal``: one chunk being filled for every store, the
/// segment it belongs to, and the index of every store's records.
///
/// Not thread-safe: the journal holds it in one mutex, so every store's records are appended
/// in one order, to one chunk, for one writer (one drainer, one flush schedule, one sync).
///
/// Invariants: a store's `extents` start at its newest snapshot (or its first record), in the
/// order its records are in the segments, so recovery reads exactly them; `segmentExtents` are
/// every record of the store in the segment being filled (the index file of that segment once
/// it is sealed); `segmentSlots` names, for each sealed segment on disk, the stores with a
/// record in it (what compaction checks). A compaction's segment (`compactedSegments`) holds
/// copies that replace its stores' records in every earlier segment; it is numbered after
/// every record it copies and before every record made once it was planned.
final class SharedJournalCore {
  struct Store {
    var key: [UInt8]
    var extents: [SharedExtent] = []
    var segmentExtents: [SharedExtent] = []
    /// Whether a store of this key records now, and which one (a store evicted and made
    /// again gets a new generation; records of an older one are dropped).
    var inUse = false
    var generation: UInt32 = 0
  }

  /// A sealed segment whose index file is due once the chunks through `through` are synced.
  struct Seal: Sendable {
    var segment: Int
    var bytes: [UInt8]
    var through: Int
  }

  let configuration: JournalConfiguration
  let writer: JournalWriter
  let runID: UInt64
  let actionType: String
  let encoding: JournalActionEncoding
  private let encode: JournalActionEncoder
  private let record = JournalBytes()
  /// ``CRC32/shared``, held here so that sealing a record does not check its lazy
  /// initialization each time.
  private let crc = CRC32.shared
  private let encoder: JournalValueEncoder
  private var chunk: JournalChunk
  private(set) var stores: [Store] = []
  private(set) var slots: [String: Int] = [:]
  var segmentSlots: [Int: [Int]] = [:]
  /// Stores with a record in the segment being filled.
  private var touched: [Int] = []
  private(set) var fileIndex: Int
  private var fileBytes = 0
  private var fileStarted = false
  private var fileHasRecords = false
  private var baseTime: UInt64 = 0
  private var lastTime: UInt64 = 0
  private(set) var recorded = 0
  private(set) var dropped = 0
  private(set) var encodingFailure: String?
  private(set) var isFinished = false
  private var unflushed = false
  /// Sealed segments whose index files are not written yet.
  var seals: [Seal] = []

  /// What ``record(slot:generation:action:enqueuedAt:)`` asks of its caller.
  struct Due: OptionSet, Sendable {
    let rawValue: UInt8
    /// The first record since the last flush: the timed flush is due one interval later.
    static let flush = Due(rawValue: 1)
    /// A segment was sealed: its index file is due.
    static let seal = Due(rawValue: 2)
  }

  init<Action: Encodable>(
    for _: Action.Type, configuration: JournalConfiguration, writer: JournalWriter,
    runID: UInt64, firstSegment: Int
  ) {
    self.configuration = configuration
    self.writer = writer
    self.runID = runID
    actionType = JournalFormat.typeName(Action.self)
    encoding = JournalActionEncoding.of(Action.self)
    encode = JournalActionEncoding.erased(for: Action.self)
    encoder = JournalValueEncoder(into: record)
    chunk = JournalChunk(capacity: configuration.bufferBytes)
    fileIndex = firstSegment
    chunk.fileIndex = firstSegment
  }

  /// The slot of `key`, made when it has none.
  func slot(for key: String) -> Int {
    if let slot = slots[key] { return slot }
    let slot = stores.count
    stores.append(Store(key: Array(key.utf8)))
    slots[key] = slot
    return slot
  }

  /// Takes the records of one sealed segment read when the journal was opened; with
  /// `supersedes` (a compaction's segment), each store's records in it replace its records
  /// in the earlier segments.
  func load(segment: Int, _ segmentStores: SharedSegmentStores, supersedes: Bool = false) {
    var present: [Int] = []
    present.reserveCapacity(segmentStores.keys.count)
    for (key, extents) in zip(segmentStores.keys, segmentStores.extents) {
      let slot = slot(for: key)
      present.append(slot)
      if supersedes { stores[slot].extents.removeAll(keepingCapacity: true) }
      for extent in extents {
        if extent.isSnapshot { stores[slot].extents.removeAll(keepingCapacity: true) }
        stores[slot].extents.append(extent)
      }
    }
    segmentSlots[segment] = present
    if supersedes { compactedSegments.insert(segment) }
  }

  /// Marks `slot` as recording for a new store; `nil` when a store of it records already.
  func claim(_ slot: Int) -> UInt32? {
    guard !stores[slot].inUse else { return nil }
    stores[slot].inUse = true
    stores[slot].generation &+= 1
    return stores[slot].generation
  }

  func release(_ slot: Int) {
    stores[slot].inUse = false
  }

  func isRecording(_ slot: Int, generation: UInt32) -> Bool {
    stores[slot].inUse && stores[slot].generation == generation
  }

  private func startFile(baseTime: UInt64) {
    let header = JournalFormat.header(
      index: UInt32(fileIndex), runID: runID, baseTime: baseTime, actionType: actionType,
      encoding: encoding, version: JournalFormat.sharedVersion)
    if chunk.remaining < header.count { submitChunk(minimum: header.count) }
    chunk.fileIndex = fileIndex
    chunk.append(header)
    self.baseTime = baseTime
    fileBytes = header.count
    fileStarted = true
    fileHasRecords = false
  }

  private func submitChunk(minimum: Int) {
    chunk = writer.exchange(
      chunk, minimum: minimum, bufferBytes: configuration.bufferBytes, fileIndex: fileIndex)
  }

  @inline(__always)
  private func beginRecord(_ kind: JournalFormat.RecordKind, slot: Int) {
    record.beginRecord(kind)
    record.appendVarint(UInt64(stores[slot].key.count))
    stores[slot].key.withUnsafeBytes { key in
      if let base = key.baseAddress { record.append(base, count: key.count) }
    }
  }

  /// Appends the sealed record for `slot`, and indexes it.
  private func appendRecord(slot: Int, isSnapshot: Bool) {
    if chunk.remaining < record.count { submitChunk(minimum: record.count) }
    let extent = SharedExtent(
      segment: fileIndex, offset: fileBytes, length: record.count, isSnapshot: isSnapshot)
    chunk.append(record)
    fileBytes += record.count
    fileHasRecords = true
    if isSnapshot { stores[slot].extents.removeAll(keepingCapacity: true) }
    stores[slot].extents.append(extent)
    if stores[slot].segmentExtents.isEmpty { touched.append(slot) }
    stores[slot].segmentExtents.append(extent)
  }

  private static var rotationRecordBytes: Int { JournalFormat.recordOverhead + 1 }

  /// Whether the record in the buffer needs a new segment first.
  private var needsRotation: Bool {
    fileHasRecords
      && fileBytes + record.count + Self.rotationRecordBytes > configuration.maxFileBytes
  }

  /// Records `action` for the store in `slot`, when `generation` is the one recording it.
  func record<Action>(
    slot: Int, generation: UInt32, action: Action, enqueuedAt: UInt64
  ) -> Due {
    guard !isFinished, isRecording(slot, generation: generation) else {
      dropped += 1
      return []
    }
    var due: Due = []
    if !fileStarted { startFile(baseTime: enqueuedAt) }
    // At most twice: a record that needs a new segment is encoded again, relative to the new
    // segment's base time.
    while true {
      beginRecord(.keyedAction, slot: slot)
      let delta = Int64(bitPattern: enqueuedAt &- baseTime)
      record.appendVarint(UInt64(bitPattern: (delta << 1) ^ (delta >> 63)))
      do {
        try withUnsafePointer(to: action) { pointer in
          try encode.encode(UnsafeRawPointer(pointer), into: record, encoder: encoder)
        }
      } catch {
        dropped += 1
        if encodingFailure == nil { encodingFailure = "\(error)" }
        return due
      }
      record.sealRecord(using: crc)
      guard needsRotation else { break }
      rotate(baseTime: enqueuedAt)
      due.insert(.seal)
    }
    appendRecord(slot: slot, isSnapshot: false)
    lastTime = enqueuedAt
    recorded += 1
    if !unflushed {
      unflushed = true
      due.insert(.flush)
    }
    return due
  }

  /// Records a snapshot of the store in `slot`: `state`, encoded, with its checksum.
  ///
  /// - Returns: What is due; `nil` after ``finish()``.
  func snapshot(slot: Int, state: [UInt8], checksum: UInt64) -> Due? {
    guard !isFinished else { return nil }
    var due: Due = []
    if !fileStarted { startFile(baseTime: lastTime) }
    beginRecord(.keyedSnapshot, slot: slot)
    record.appendFixed(checksum)
    state.withUnsafeBytes { bytes in
      if let base = bytes.baseAddress { record.append(base, count: bytes.count) }
    }
    record.sealRecord(using: crc)
    if needsRotation {
      rotate(baseTime: lastTime)
      due.insert(.seal)
    }
    appendRecord(slot: slot, isSnapshot: true)
    if !unflushed {
      unflushed = true
      due.insert(.flush)
    }
    return due
  }

  /// The index of the segment being filled, which ends at `fileBytes`; clears the segment's
  /// extents.
  private func sealSegment() -> [UInt8] {
    var segmentStores = SharedSegmentStores()
    for slot in touched {
      segmentStores.append(
        String(decoding: stores[slot].key, as: UTF8.self), stores[slot].segmentExtents)
      stores[slot].segmentExtents.removeAll()
    }
    segmentSlots[fileIndex] = touched
    touched.removeAll()
    return SharedJournalIndexFile.encode(
      segment: fileIndex, runID: runID, segmentBytes: fileBytes, stores: segmentStores)
  }

  /// Ends the segment with a rotation record and starts the next one.
  private func rotate(baseTime: UInt64) {
    endSegment()
    startFile(baseTime: baseTime)
  }

  /// Ends the segment being written with a rotation record, hands its last bytes to the
  /// writer, queues its index to be written once they are synced, and moves to the next
  /// segment number.
  private func endSegment() {
    let payload = [JournalFormat.RecordKind.rotation.rawValue]
    let rotation = JournalFormat.recordHeader(payload: payload) + payload
    if chunk.remaining < rotation.count { submitChunk(minimum: rotation.count) }
    chunk.append(rotation)
    fileBytes += rotation.count
    let index = sealSegment()
    submitChunk(minimum: 0)
    seals.append(Seal(segment: fileIndex, bytes: index, through: writer.submittedChunks))
    fileIndex += 1
  }

  /// Whether the chunk being filled holds bytes not handed to the writer yet.
  var hasPendingBytes: Bool { !isFinished && chunk.count > 0 }

  func flush() {
    unflushed = false
    guard !isFinished, chunk.count > 0 else { return }
    submitChunk(minimum: 0)
  }

  /// Hands the last chunk to the writer and seals the last segment; later records are
  /// dropped. Returns the last segment's seal (due once the writer finished), if it has
  /// records.
  func finish() -> Seal? {
    guard !isFinished else { return nil }
    var seal: Seal?
    if fileStarted {
      let index = sealSegment()
      if chunk.count > 0 { _ = writer.submit(chunk) }
      seal = Seal(segment: fileIndex, bytes: index, through: writer.submittedChunks)
    }
    isFinished = true
    return seal
  }

  /// Bumped each time a compaction moves records to another segment: a recovery that read
  /// extents of an earlier layout, and failed, reads the store's extents again.
  private(set) var layoutEpoch = 0
  /// Whether a compaction runs: compactions never overlap.
  var isCompacting = false
  /// `close()` calls waiting for the running compaction to end, so that the journal's lock is
  /// never released while a compaction may still remove a segment.
  var compactionWaiters: [CheckedContinuation<Void, Never>] = []
  /// Sealed segments that a compaction wrote (every record in them was live when copied).
  var compactedSegments: Set<Int> = []

  /// A compaction that copies stores' live records forward, planned by
  /// `planCompaction(limit:)`.
  struct CompactionPlan: Sendable {
    /// The segment number set aside for the copies.
    var segment: Int
    /// The chunks the sealed segments' records are in: synced before they are read.
    var through: Int
    /// The stores to copy (their extents when the plan was made, all before `segment`).
    var copies: [(slot: Int, key: [UInt8], extents: [SharedExtent])]
    var due: Due
  }

  /// What a compaction does: `nil` when every sealed segment can simply be removed (or there
  /// is none); otherwise seals the segment being filled, sets the next segment number aside
  /// for the copies (later records go to the one after it, so the copies sort between every
  /// record they copy and every record after them), and names the stores to copy: every store
  /// with records, up to `limit` bytes of them (counting 10 more bytes per record: a copied
  /// action's time delta may grow).
  func planCompaction(limit: Int) -> CompactionPlan? {
    let sealed = segmentSlots.keys.filter { $0 < fileIndex || isFinished }
    let removable = Set(removableSegments())
    // Copying pays when a needed segment holds a record no store needs: any segment but a
    // compaction's, whose records were all live, until one of its stores moved on.
    let worthCopying = sealed.contains { segment in
      guard !removable.contains(segment) else { return false }
      guard compactedSegments.contains(segment) else { return true }
      return (segmentSlots[segment] ?? []).contains { slot in
        guard let first = stores[slot].extents.first else { return true }
        return Int(first.segment) > segment
      }
    }
    guard worthCopying else { return nil }
    var due: Due = []
    let segment: Int
    if isFinished {
      segment = fileIndex + 1
      fileIndex = segment
    } else {
      if fileStarted {
        endSegment()
        due.insert(.seal)
        fileStarted = false
      }
      segment = fileIndex
      fileIndex += 1
      chunk.fileIndex = fileIndex
    }
    var copies: [(slot: Int, key: [UInt8], extents: [SharedExtent])] = []
    var bytes = 0
    for slot in stores.indices where !stores[slot].extents.isEmpty {
      let size = stores[slot].extents.reduce(0) { $0 + $1.length + 10 }
      guard bytes + size <= limit else { continue }
      bytes += size
      copies.append((slot, stores[slot].key, stores[slot].extents))
    }
    return CompactionPlan(
      segment: segment, through: writer.submittedChunks, copies: copies, due: due)
  }

  /// Points each copied store at its copies in `segment`, unless it wrote a snapshot since
  /// the plan (its copies are then superseded already), and lists the segment's stores.
  func installCopies(
    segment: Int, _ copies: [(slot: Int, old: [SharedExtent], new: [SharedExtent])]
  ) {
    for copy in copies where stores[copy.slot].extents.starts(with: copy.old) {
      stores[copy.slot].extents.replaceSubrange(0..<copy.old.count, with: copy.new)
    }
    segmentSlots[segment] = copies.map { $0.slot }
    compactedSegments.insert(segment)
    layoutEpoch += 1
  }

  /// Sealed segments that no store needs: every store with a record in one has its newest
  /// snapshot in a later segment.
  func removableSegments() -> [Int] {
    segmentSlots.compactMap { segment, present in
      guard segment < fileIndex || isFinished else { return nil }
      let needed = present.contains { slot in
        guard let first = stores[slot].extents.first else { return false }
        return Int(first.segment) <= segment
      }
      return needed ? nil : segment
    }.sorted()
  }
}

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif
import SpoolCore
import SpoolIO
import Synchronization

/// One journal for many stores, keyed by store ID: one writer, one timed flush and one sync
/// (group commit) for all of them, and an index so that recovering one store reads its own
/// records only.
///
/// The sibling of ``JournalDirectory`` for a `StoreRegistry` that holds many small stores:
/// where a directory keeps one journal (files, writer, flush schedule) per store, a shared
/// journal appends every store's records, each naming its store, to one sequence of segments
/// (`path.0.journal`, `path.1.journal`, …, rotated at
/// ``JournalConfiguration/maxFileBytes``, at most 1 GiB). Each sealed segment gets an index
/// file (`path.N.index`) that lists, for each store, where its records are; opening the
/// journal reads the index files (and scans the segments that have none, such as the one a
/// crash cut), so that recovering one store then reads its newest snapshot and the actions
/// after it, and nothing else. "Many stores, one journal" in <doc:RecordingAndReplaying>
/// has the format, the costs and how they were measured.
///
/// Wire it into a registry as a ``JournalDirectory``: ``makeStore(for:initialState:recovered:reducer:)``
/// as `makeStore`, ``evict(_:finalState:)`` in `onEvict` (a snapshot of the store, synced);
/// call ``compact()`` now and then to remove the segments no store needs, and ``close()`` at
/// the end. ``load(_:)`` reads one store's records for inspection or a replay.
///
/// ```swift
/// let journal = try await SharedJournal<Cart.ID, Cart.State, Cart.Action>.open(
///   path: "/var/lib/carts/journal")
/// let carts = StoreRegistry<Cart.ID, Cart.State, Cart.Action>(
///   onEvict: { id, state in
///     do { try await journal.evict(id, finalState: state) } catch { logger.error("\(error)") }
///   }
/// ) { id in
///   try await journal.makeStore(for: id, initialState: Cart.State(id: id), recovered: .recovered) {
///     Cart()
///   }
/// }
/// ```
public final class SharedJournal<
  ID: Hashable & Sendable, State: Codable & Sendable, Action: Codable & Sendable
>: Sendable {
  /// The journal's path, without the `.N.journal` and `.N.index` suffixes of its files.
  public let path: String
  /// What opening the journal read.
  public let opening: SharedJournalOpening
  let engine: IOEngine
  let key: @Sendable (ID) -> String
  let sink: SharedJournalSink

  /// The longest store key, in UTF-8 bytes.
  ///
  /// ```swift
  /// precondition("\(id)".utf8.count <= SharedJournal<Int, S, A>.maxKeyBytes)
  /// ```
  public static var maxKeyBytes: Int { 1_024 }

  /// The largest segment a shared journal writes: its records' offsets are 32-bit.
  static var maxSegmentBytes: Int { 1 << 30 }

  private init(
    path: String, opening: SharedJournalOpening, engine: IOEngine,
    key: @escaping @Sendable (ID) -> String, sink: SharedJournalSink
  ) {
    self.path = path
    self.opening = opening
    self.engine = engine
    self.key = key
    self.sink = sink
  }

  /// Opens the shared journal at `path`, creating it when it has no segment yet: reads every
  /// segment's header and index file, scans the segments without a usable index (and writes
  /// their index), and starts a new segment after the last one, where this run records.
  ///
  /// A segment's index is used only when the segment's header names the index's run and the
  /// segment has the length the index says; otherwise (a crash cut the segment, or the index
  /// is another run's) the segment is scanned and the index rebuilt. A segment cut by a crash
  /// keeps its whole records: it is truncated after the last one, which drops a torn record
  /// and releases the disk space its writer reserved past its end (best effort: a segment
  /// that cannot be truncated is read the same). Nothing is ever appended to it again. An
  /// indexed segment that still holds space reserved past its end (its run died after
  /// writing its index, before the next segment's first write) is truncated to its indexed
  /// length, which releases that space without reading its records.
  ///
  /// The journal is open in one place at a time: `open` takes an exclusive lock on
  /// `path.lock` (`flock`), held until ``close()``, and refuses a journal that another
  /// `SharedJournal`, in this process or another, has open. The kernel releases the lock of a
  /// process that dies, so a crash never leaves the journal locked. With the lock taken, `open`
  /// removes the temporary files that a run which died while writing a compaction's copies or
  /// an index left behind (``SharedJournalOpening/removedTemporaries``).
  ///
  /// - Parameters:
  ///   - path: The journal's path; its folder must exist and be writable.
  ///   - configuration: Segment size (at most 1 GiB), buffer size and flush interval;
  ///     `maxFiles` does not apply (compaction bounds the segments).
  ///   - engine: The engine that reads and writes the files.
  ///   - key: A store's key in its records: `"\(id)"` by default; 1 to
  ///     ``maxKeyBytes`` bytes of UTF-8, one ID per key.
  /// - Throws: ``JournalError`` naming the file, byte and problem: a damaged header, record
  ///   or index (``JournalError/Code/corruptIndex``), a segment of another action type or
  ///   format version, an I/O failure, or ``JournalError/Code/inUse`` (naming the lock file)
  ///   when the journal is open elsewhere.
  ///
  /// ```swift
  /// let journal = try await SharedJournal<Int, Cart.State, Cart.Action>.open(
  ///   path: "/var/lib/carts/journal",
  ///   configuration: JournalConfiguration(maxFileBytes: 64 << 20, flushInterval: .milliseconds(20)))
  /// print(journal.opening.bytesRead, "bytes read to open")
  /// ```
  public static func open(
    path: String,
    configuration: JournalConfiguration = JournalConfiguration(),
    engine: IOEngine = .shared,
    key: @escaping @Sendable (ID) -> String = { "\($0)" }
  ) async throws(JournalError) -> SharedJournal {
    var configuration = configuration
    configuration.maxFileBytes = min(configuration.maxFileBytes, maxSegmentBytes)
    let folder = FileOperations.directoryName(of: path)
    if access(folder, W_OK | X_OK) != 0 {
      let problem = IOError(errno: errno, operation: "access", target: .path(folder))
      throw JournalError(file: JournalFormat.filePath(path, index: 0), offset: 0, problem: .io(problem))
    }
    let lock = try JournalLock(path: path, holder: "SharedJournal")
    var opening = SharedJournalOpening()
    opening.removedTemporaries = JournalFiles.removeTemporaries(of: path)
    let segments = try JournalFiles.indices(of: path)
    let writer = JournalWriter(
      path: path, engine: engine, reservation: .forFiles(of: configuration.maxFileBytes))
    let core = SharedJournalCore(
      for: Action.self, configuration: configuration, writer: writer,
      runID: UInt64.random(in: 1...UInt64.max), firstSegment: (segments.last ?? -1) + 1)
    for segment in segments {
      do {
        try await load(segment, path: path, engine: engine, into: core, opening: &opening)
      } catch {
        throw journalError(error, file: JournalFormat.filePath(path, index: segment))
      }
    }
    opening.stores = core.stores.count
    let sink = SharedJournalSink(
      path: path, engine: engine, configuration: configuration, core: core, lock: lock)
    return SharedJournal(path: path, opening: opening, engine: engine, key: key, sink: sink)
  }

  /// Reads segment `segment`'s header and index (or the whole segment) into `core`.
  private static func load(
    _ segment: Int, path: String, engine: IOEngine, into core: SharedJournalCore,
    opening: inout SharedJournalOpening
  ) async throws {
    let file = JournalFormat.filePath(path, index: segment)
    opening.segments += 1
    let header: JournalFileParser.Header
    do {
      header = try await JournalFiles.header(
        of: file, engine: engine, version: JournalFormat.sharedVersion)
    } catch let error as JournalError
      where error.code == .empty || JournalFileParser.endsInsideHeader(error)
    {
      // Created, and cut before its header was whole: it holds no record. Truncated to its
      // size, which releases the space its writer reserved past its end.
      opening.cutSegments += 1
      core.segmentSlots[segment] = []
      if let size = try? await FileOperations.status(file, engine: engine).size {
        let tail = JournalOpenTail(
          index: segment, size: Int(clamping: size), validEnd: Int(clamping: size), runID: nil)
        _ = await JournalFiles.releaseTail(tail, of: file, engine: engine)
      }
      return
    }
    opening.bytesRead += header.end
    let parser = JournalFileParser(file: file, bytes: [], version: JournalFormat.sharedVersion)
    guard header.actionType == core.actionType else {
      throw parser.error(
        JournalFormat.actionTypeOffset,
        .actionTypeMismatch(recorded: header.actionType, expected: core.actionType))
    }
    guard header.encoding == core.encoding else {
      throw parser.error(
        header.encodingOffset,
        .encodingMismatch(
          recorded: header.encoding.description, expected: core.encoding.description))
    }
    guard header.index == UInt32(segment) else {
      throw parser.error(
        JournalFormat.indexOffset, .foreignFile("its index is \(header.index), not \(segment)"))
    }
    let status = try await FileOperations.status(file, engine: engine)
    let size = Int(clamping: status.size)
    let indexFile = SharedJournalIndexFile.path(path, segment: segment)
    let indexBytes: [UInt8]?
    do {
      indexBytes = try await JournalFileReading.read(indexFile, engine: engine)
    } catch let error as IOError where error.errno == ENOENT {
      indexBytes = nil
    }
    if let indexBytes {
      opening.bytesRead += indexBytes.count
      opening.indexBytes += indexBytes.count
      let index = try SharedJournalIndexFile.decode(indexBytes, file: indexFile)
      if index.segment == segment, index.runID == header.runID, index.segmentBytes == size {
        opening.indexedSegments += 1
        core.load(segment: segment, index.stores, supersedes: header.isCompacted)
        // A run that died after writing the index of a segment it sealed, before the next
        // segment's first write (which releases the sealed one's reservation), left the
        // space reserved past its end. The segment holds exactly the indexed bytes (its
        // run's, of the indexed length) and the lock is held, so truncating it to its length
        // cuts nothing; its records are not read for it.
        if status.holdsSpacePastItsEnd {
          let tail = JournalOpenTail(
            index: segment, size: size, validEnd: size, runID: header.runID)
          if await JournalFiles.releaseTail(tail, of: file, engine: engine) != nil {
            opening.releasedReservations += 1
          }
        }
        return
      }
      opening.staleIndexes += 1
    }
    let bytes = try await JournalFileReading.read(file, engine: engine)
    opening.bytesRead += bytes.count - header.end
    opening.scannedSegments += 1
    let (stores, cut) = try SharedJournalIndexFile.scan(
      bytes, file: file, segment: segment, header: header)
    if let cut { opening.cuts.append(cut) }
    core.load(segment: segment, stores, supersedes: header.isCompacted)
    // A segment without a usable index was left open by a run that died (or its index was
    // lost): truncated after its last whole record, which drops a torn record and releases
    // the space its writer reserved past its end. The lock is held: no run writes it.
    let tail = JournalOpenTail(
      index: segment, size: bytes.count, validEnd: cut?.offset ?? bytes.count,
      runID: header.runID)
    let segmentBytes = await JournalFiles.releaseTail(tail, of: file, engine: engine)
      ?? bytes.count
    // The segment is never written again (a run starts a segment of its own): its index,
    // covering its length as it is now, stays valid. Best effort: without it, the next open
    // scans the segment again.
    let rebuilt = SharedJournalIndexFile.encode(
      segment: segment, runID: header.runID, segmentBytes: segmentBytes, stores: stores)
    do {
      try await FileOperations.writeFileAtomically(indexFile, rebuilt, engine: engine)
      opening.rebuiltIndexes += 1
    } catch {}
  }

  /// `error` as a ``JournalError`` about `file`.
  static func journalError(_ error: any Error, file: String) -> JournalError {
    if let error = error as? JournalError { return error }
    if let error = error as? IOError {
      return JournalError(file: file, offset: 0, problem: .io(error))
    }
    return JournalError(
      file: file, offset: 0,
      problem: .io(IOError(errno: ECANCELED, operation: "read", target: .path(file))))
  }

  /// The key of `id`, checked.
  func checkedKey(_ id: ID) throws(JournalError) -> String {
    let name = key(id)
    let count = name.utf8.count
    guard count > 0, count <= Self.maxKeyBytes else {
      throw JournalError(
        file: path, offset: 0,
        problem: .invalidKey("the key of \(id) has \(count) bytes (1 to \(Self.maxKeyBytes))"))
    }
    return name
  }

  /// The store of `id`, recovered from its records and recording into the journal: for a
  /// registry's `makeStore`.
  ///
  /// - Parameters:
  ///   - id: The store's ID.
  ///   - initialState: The state of a store that has no record yet.
  ///   - recovered: An action sent to the store once it is created, to restart its
  ///     long-lived effects; `nil` to send none.
  ///   - reducer: The feature's reducer.
  /// - Returns: The store, whose instrumentation is a ``SharedJournalRecorder``.
  /// - Throws: ``JournalError``: what ``recover(for:initialState:reducer:)`` throws,
  ///   ``JournalError/Code/inUse`` when a store of `id` was made and not evicted yet, or
  ///   ``JournalError/Code/storeBusy`` after ``close()``.
  ///
  /// ```swift
  /// let store = try await journal.makeStore(for: 42, initialState: Cart.State()) { Cart() }
  /// ```
  public func makeStore<R: Reducer<State, Action> & SendableMetatype>(
    for id: ID, initialState: State, recovered: Action? = nil,
    @ReducerBuilder<State, Action> reducer: () -> R
  ) async throws(JournalError) -> Store<State, Action> {
    let name = try checkedKey(id)
    let feature = reducer()
    let claimed = sink.core.withLock { core -> (slot: Int, generation: UInt32?)? in
      guard !core.isFinished else { return nil }
      let slot = core.slot(for: name)
      return (slot, core.claim(slot))
    }
    guard let (slot, generation) = claimed else {
      throw JournalError(
        file: path, offset: 0, problem: .storeBusy("the shared journal is closed"))
    }
    guard let generation else { throw inUse(name) }
    let recovery: SharedJournalRecovery<State>
    do {
      recovery = try await recover(slot: slot, name: name, initialState: initialState, feature)
    } catch {
      sink.core.withLock { $0.release(slot) }
      throw error
    }
    let recorder = SharedJournalRecorder<Action>(sink: sink, slot: slot, generation: generation)
    let store = Store(initialState: recovery.state, instrumentation: recorder) { feature }
    if let recovered { await store.send(recovered) }
    return store
  }

  private func inUse(_ name: String) -> JournalError {
    JournalError(
      file: path, offset: 0,
      problem: .inUse("a store of key \(name) was made here and not evicted"))
  }

  /// Rebuilds the state of `id`'s store from its records: its newest snapshot, then the
  /// actions after it, reduced by `reducer` with its effects discarded. Reads those records
  /// only (the index says where they are), each checked against its checksums and its key.
  ///
  /// Once a write of the journal has failed (a full disk, `EIO`), the journal writes nothing
  /// more, and every recovery of it throws that failure, as ``load(_:)`` does, rather than read
  /// the disk. The index in memory names the records the journal took after its last
  /// successful write, an eviction's snapshot among them, and those never reached the disk: a
  /// recovery from the disk would miss actions the store reduced, or fail on a record that
  /// the index names and the segment lacks; and a store made from it could record nothing.
  /// Close the journal and open it again to recover what the disk holds: every store's
  /// records up to the last whole one written.
  ///
  /// - Throws: ``JournalError``: ``JournalError/Code/inUse`` while a store of `id` records;
  ///   a record that is damaged, or not the one the index names
  ///   (``JournalError/Code/corruptIndex``); a snapshot whose state does not decode or does
  ///   not match its checksum; an I/O failure, including a failed write of the journal
  ///   (``JournalError/Code/io``, naming the segment the disk refused).
  ///
  /// ```swift
  /// let recovery = try await journal.recover(for: 42, initialState: Cart.State()) { Cart() }
  /// print(recovery.state, recovery.bytesRead, recovery.verification)
  /// ```
  public func recover<R: Reducer<State, Action>>(
    for id: ID, initialState: State,
    @ReducerBuilder<State, Action> reducer: () -> R
  ) async throws(JournalError) -> SharedJournalRecovery<State> {
    let name = try checkedKey(id)
    let feature = reducer()
    let (slot, generation) = sink.core.withLock { core in
      let slot = core.slot(for: name)
      return (slot, core.claim(slot))
    }
    guard generation != nil else { throw inUse(name) }
    defer { sink.core.withLock { $0.release(slot) } }
    return try await recover(slot: slot, name: name, initialState: initialState, feature)
  }

  private func recover<R: Reducer<State, Action>>(
    slot: Int, name: String, initialState: State, _ reducer: R
  ) async throws(JournalError) -> SharedJournalRecovery<State> {
    // After a failed write, the index in memory names records that never reached the disk:
    // reading them would report a damaged index, not the failure.
    if let failure = sink.writer.failure {
      throw Self.journalError(failure, file: (failure as? IOError)?.target.path ?? path)
    }
    var attempt = 0
    while true {
      let (extents, epoch) = sink.core.withLock { ($0.stores[slot].extents, $0.layoutEpoch) }
      if let pause = sink.recoveryPause.withLock({ $0 }) { await pause(name, attempt) }
      attempt += 1
      do {
        return try await recover(
          extents: extents, name: name, initialState: initialState, reducer)
      } catch {
        // A compaction copied the records read here and removed their segments meanwhile:
        // the records are whole in their new place, read them there.
        guard sink.core.withLock({ $0.layoutEpoch }) != epoch else { throw error }
      }
    }
  }

  private func recover<R: Reducer<State, Action>>(
    extents: [SharedExtent], name: String, initialState: State, _ reducer: R
  ) async throws(JournalError) -> SharedJournalRecovery<State> {
    var recovery = SharedJournalRecovery(state: initialState)
    recovery.bytesRead = try await readStore(extents: extents, name: name, withTimes: false) {
      record in
      switch record {
      case .snapshot(let state, let checksum):
        recovery.state = state
        recovery.startedFromSnapshot = true
        recovery.snapshotChecksum = checksum
        recovery.actions = 0
      case .action(let action, _):
        _ = reducer.reduce(into: &recovery.state, action: action)
        recovery.actions += 1
        recovery.snapshotChecksum = nil
      }
    }
    if let checksum = recovery.snapshotChecksum {
      recovery.verification = .verified(checksum: checksum)
    } else {
      recovery.verification = .unverified(unverifiable(extents: extents, name: name))
    }
    return recovery
  }

  /// Writes `finalState`, the final state of `id`'s evicted store, as a snapshot record, and
  /// waits until it is durable: for a registry's `onEvict`. The next store of `id` recovers
  /// from this snapshot alone, and the segments before it no longer hold anything it needs
  /// (``compact()``).
  ///
  /// Call it only with the state `onEvict` hands over: the store must reduce nothing more
  /// (its later actions are dropped).
  ///
  /// - Returns: `false` when no store of `id` was made here (nothing is written).
  /// - Throws: The `EncodingError` of the state, or the `IOError` of the write or sync (the
  ///   journal then still recovers the store from its earlier records); ``JournalError`` with
  ///   ``JournalError/Code/storeBusy`` after ``close()``. The ID may get a new store either
  ///   way.
  ///
  /// ```swift
  /// onEvict: { id, state in try? await journal.evict(id, finalState: state) }
  /// ```
  @discardableResult
  public func evict(_ id: ID, finalState: State) async throws -> Bool {
    let name = try checkedKey(id)
    let encoded = JournalBytes()
    try JournalValueEncoder(into: encoded).encode(finalState)
    let checksum = try StateChecksum.of(finalState)
    let bytes = encoded.bytes
    let outcome: SharedJournalCore.Due?? = sink.core.withLock { core in
      guard let slot = core.slots[name], core.stores[slot].inUse else { return .none }
      // Released whatever happens: the ID must be able to get a new store.
      defer { core.release(slot) }
      return .some(core.snapshot(slot: slot, state: bytes, checksum: checksum))
    }
    guard let written = outcome else { return false }
    guard let due = written else {
      throw JournalError(
        file: path, offset: 0, problem: .storeBusy("the shared journal is closed"))
    }
    sink.handle(due)
    try await sink.waitUntilDurable()
    return true
  }

  /// Waits until every action recorded before the call, for every store, is written and
  /// synced (`fdatasync`); concurrent waiters share one sync (group commit).
  ///
  /// - Throws: The first `IOError` of the writes or syncs; `CancellationError`.
  ///
  /// ```swift
  /// await store.send(.add(item))
  /// try await journal.waitUntilDurable()
  /// return .ok
  /// ```
  public func waitUntilDurable() async throws {
    try await sink.waitUntilDurable()
  }

  /// Writes what was recorded so far and waits until it is in the files (not synced).
  ///
  /// ```swift
  /// try await journal.flush()
  /// ```
  public func flush() async throws {
    try await sink.flush()
  }

  /// Stops recording, writes and syncs every record, and writes the last segment's index.
  /// Stores that record afterwards drop their actions. A second call does nothing more.
  /// Waits for a running ``compact()`` to end, then releases the journal's lock (even when a
  /// write fails), after which another run may open it.
  ///
  /// - Returns: What this run of the journal wrote.
  /// - Throws: The first `IOError` of the writes or syncs.
  ///
  /// ```swift
  /// await registry.shutdown(deadline: .now + .seconds(5))
  /// let summary = try await journal.close()
  /// ```
  @discardableResult
  public func close() async throws -> SharedJournalSummary {
    let closed = try await sink.close()
    return SharedJournalSummary(
      actions: closed.records, droppedActions: closed.dropped, segments: closed.files,
      bytes: closed.bytes)
  }
}

/// What ``SharedJournal/open(path:configuration:engine:key:)`` read.
///
/// ```swift
/// let journal = try await SharedJournal<Int, S, A>.open(path: path)
/// print(journal.opening.indexedSegments, journal.opening.scannedSegments)
/// ```
public struct SharedJournalOpening: Sendable, Hashable {
  /// Segments found.
  public var segments = 0
  /// Segments whose index file was used.
  public var indexedSegments = 0
  /// Segments read in full (no usable index), whose index was then written.
  public var scannedSegments = 0
  /// Index files found but stale (another run, or a segment of another length).
  public var staleIndexes = 0
  /// Index files written for scanned segments.
  public var rebuiltIndexes = 0
  /// Segments cut before their header was whole (they hold no record).
  public var cutSegments = 0
  /// Indexed segments truncated to their indexed length, which released the space their run
  /// reserved past their end and died before releasing (after writing their index, before
  /// the next segment's first write).
  public var releasedReservations = 0
  /// Temporary files removed: a compaction's copies or an index that a run which died
  /// partway through writing them left behind.
  public var removedTemporaries = 0
  /// Bytes read: segment headers, index files, scanned segments.
  public var bytesRead = 0
  /// Bytes of index files read.
  public var indexBytes = 0
  /// Stores with records.
  public var stores = 0
  /// Where scanned segments were cut (a crash, a full disk): the records before each cut are
  /// kept.
  public var cuts: [JournalError] = []
}

/// One store's state rebuilt by ``SharedJournal/recover(for:initialState:reducer:)``.
///
/// ```swift
/// let recovery = try await journal.recover(for: 42, initialState: Cart.State()) { Cart() }
/// if case .verified = recovery.verification { print("evicted cleanly") }
/// ```
public struct SharedJournalRecovery<State: Sendable>: Sendable {
  /// The state: the newest snapshot's, with the actions after it reduced.
  public var state: State
  /// Actions reduced after the snapshot (after the initial state without one).
  public var actions = 0
  /// Whether recovery started from a snapshot.
  public var startedFromSnapshot = false
  /// Bytes of segments read: the store's records, nothing else.
  public var bytesRead = 0
  /// ``JournalVerification/verified(checksum:)`` when the store's last record is a snapshot
  /// (it was evicted, and nothing was recorded after); otherwise why not.
  public var verification = JournalVerification.unverified(
    JournalError(file: "", offset: 0, problem: .noStateChecksum("not recovered")))
  /// The checksum of the snapshot just read, while no action follows it.
  var snapshotChecksum: UInt64?

  init(state: State) {
    self.state = state
  }
}

/// What a ``SharedJournal`` wrote in one run, returned by ``SharedJournal/close()``.
///
/// ```swift
/// let summary = try await journal.close()
/// print(summary.actions, "actions in", summary.segments, "segments")
/// ```
public struct SharedJournalSummary: Sendable, Hashable {
  /// Actions recorded, over all stores.
  public var actions: Int
  /// Actions not recorded: after ``SharedJournal/close()`` or eviction, or whose encoding
  /// threw.
  public var droppedActions: Int
  /// Segments written.
  public var segments: Int
  /// Bytes written, over all segments.
  public var bytes: Int
}

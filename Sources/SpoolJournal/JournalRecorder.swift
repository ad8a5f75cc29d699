import SpoolCore
import SpoolIO
import Synchronization

/// Records every action a store reduces, with its enqueue time, to a journal on disk.
///
/// A `StoreInstrumentation`: give it to a store, run the store, then call
/// ``finish(finalState:)`` with the store's final state so that a replay can prove it
/// reproduced the run (``ActionJournal/replay(into:pace:)``). Each action is encoded on the
/// thread that reduced it, into a reused buffer, with its ``JournalCodable`` conformance when it
/// has one and `Codable` otherwise; full buffers are appended to the files by a task of their
/// own through SpoolIO (io_uring, or its thread fallback), so the store never waits for the
/// disk. Files rotate at
/// ``JournalConfiguration/maxFileBytes``; see ``JournalConfiguration`` for the limit.
///
/// It records what the store reduces, including the actions its effects send back; so a
/// replay reduces the same actions without running effects (see
/// ``SpoolCore/Reducer/discardingEffects()``).
///
/// Records wait in memory until a 256 KiB chunk is full, until
/// ``JournalConfiguration/flushInterval`` (100 ms by default) has passed since the first of
/// them, or until ``flush()`` or ``finish(finalState:)``; a recorder with nothing to write
/// sleeps without a timer: a process that is killed loses at most the actions of its last
/// interval, and its journal replays to the last record written, as cut off. Written is not
/// synced: a power loss can take more; ``waitUntilDurable()`` and ``finish(finalState:)``
/// sync. To acknowledge an action only once it is on disk, wait for ``waitUntilDurable()``.
///
/// ``snapshot(of:compacting:)`` writes the store's state into the journal, so that
/// ``ActionJournal/recover(initialState:reducer:)`` starts there, and removes the files before
/// it.
///
/// To feed a `LatencyRecorder` (or any other instrumentation) too, pass it as `forwardingTo`,
/// or combine both with SpoolMetrics' `CombinedInstrumentation`.
///
/// ```swift
/// let journal = try ActionJournal<Counter.Action>.recording(to: "/var/tmp/counter")
/// let store = Store(initialState: Counter.State(), instrumentation: journal) {
///   Counter()
/// }
/// store.enqueue(.increment)
/// await store.finish()
/// try await journal.finish(finalState: await store.state)
/// ```
///
/// - Note: Budget per action, for an action that adopts ``JournalCodable``: no allocation, no
///   metadata lookup, no reference counting; one virtual call to its `write(to:)`, an
///   uncontended lock, a CRC over the record, one clock read and one copy: about 31 ns per
///   action on the 2-core machine Spool is measured on (`spool bench journal`). A
///   `Codable`-only action costs about 400 ns more, most of it `Codable`'s own machinery, and
///   allocates a box per keyed container. The SpoolJournal article "Recording and replaying
///   actions" has the figures, the machine and how to rerun them.
public final class JournalRecorder<Action: Codable & Sendable>: StoreInstrumentation {
  /// The journal's path, without the `.N.journal` suffix of its files.
  public let path: String
  /// The instrumentation every call is forwarded to, after recording.
  public let next: (any StoreInstrumentation<Action>)?
  private let writer: JournalWriter
  /// A concrete type (not generic in `Action`), so that locking it looks up no metadata.
  private let core: Mutex<JournalRecorderCore>
  /// Flushes one ``JournalConfiguration/flushInterval`` after a record arrives in an empty
  /// buffer, and sleeps without a timer while nothing is recorded; stopped by `finish` or
  /// `deinit`. Its flush holds the recorder weakly, so a recorder released without `finish` is
  /// not kept alive.
  private let schedule: JournalFlushSchedule?
  /// The journal's lock, held from the recorder's creation until ``finish(finalState:)`` ends
  /// (or the recorder's last reference goes, which a timed flush in progress or the store's
  /// queue can hold for a moment after the store is dropped): one recorder writes a journal's
  /// files at a time.
  private let lock: JournalLock

  init(
    path: String, configuration: JournalConfiguration, engine: IOEngine,
    next: (any StoreInstrumentation<Action>)?, lock: JournalLock,
    start: JournalContinuation = JournalContinuation()
  ) {
    self.lock = lock
    self.path = path
    self.next = next
    writer = JournalWriter(
      path: path, engine: engine,
      reservation: .forFiles(of: configuration.maxFileBytes))
    core = Mutex(
      JournalRecorderCore(
        for: Action.self, configuration: configuration, writer: writer,
        runID: UInt64.random(in: 1...UInt64.max), start: start))
    schedule = configuration.flushInterval.map { JournalFlushSchedule(interval: $0) }
    // Weak: the writer lives as long as the recorder, and a drainer that outlives the recorder
    // has nothing left to collect.
    writer.setCollector { [weak self] in self?.core.withLock { $0.flush() } }
    schedule?.start { [weak self] in
      guard let self else { return false }
      self.core.withLock { $0.flush() }
      return true
    }
  }

  deinit {
    schedule?.stop()
  }

  /// Writes what was recorded so far, and waits until it is in the files (written, not
  /// synced): a replay of the journal then reaches every action recorded before the call.
  ///
  /// The recorder does this by itself every ``JournalConfiguration/flushInterval``; call it
  /// to choose the moment (before a risky step, at a checkpoint).
  ///
  /// - Throws: The first `IOError` of the writes.
  ///
  /// ```swift
  /// store.enqueue(.checkout)
  /// await store.finish()
  /// try await journal.flush()  // `.checkout` is in the journal
  /// ```
  public func flush() async throws {
    core.withLock { $0.flush() }
    try await writer.waitUntilWritten()
  }

  /// Waits until every action recorded before the call is durable: written to the journal
  /// and synced to the storage device (`fdatasync`, through io_uring where it runs, or a
  /// blocking call on the thread fallback), so that neither a killed process nor a power loss
  /// can take it.
  ///
  /// Call it before acknowledging an action to a client. Calls that overlap share one sync
  /// (group commit): a sync starts when the writer has nothing left to write, and covers every
  /// waiter present then; waiters that arrive during it share the next one. A store's
  /// `send` returns once the action is reduced, and so recorded, so waiting after it covers the
  /// action and everything reduced before it.
  ///
  /// - Throws: The first `IOError` of the writes or syncs (a full disk: `ENOSPC`); the actions
  ///   are then not reported durable, though those before the failure may be on disk.
  ///   `CancellationError` when the task is cancelled first.
  ///
  /// ```swift
  /// await store.send(.add(item))
  /// try await journal.waitUntilDurable()
  /// return .ok  // the add survives a crash from here on
  /// ```
  public func waitUntilDurable() async throws {
    // The chunk being filled is not handed over here: the drainer collects it before its next
    // sync, so overlapping waiters add one write between them, not one each.
    let through = core.withLock { core in
      writer.submittedChunks + (core.hasPendingBytes ? 1 : 0)
    }
    try await writer.waitUntilDurable(through: through)
  }

  /// Writes a snapshot of `store`'s state to the journal, waits until it is durable, and,
  /// when `compacting`, removes the journal's files before it.
  ///
  /// The snapshot starts a new file of the journal and holds the state, encoded as a
  /// `Codable` value, with its checksum; ``ActionJournal/recover(initialState:reducer:)``
  /// starts from the newest snapshot and replays only the actions after it. The state is read
  /// from the store while it is between two actions, and written only if no action was
  /// recorded since the read began (the read is tried again otherwise), so the snapshot is the
  /// state that exactly the actions before it lead to. This recorder must be `store`'s
  /// instrumentation (or be forwarded every action it reduces).
  ///
  /// Compaction removes files only after the snapshot and every record before it are synced
  /// (and its file's name with its folder), lowest index first, and syncs the folder after:
  /// a crash at any point leaves the snapshot's file and the files after it, and maybe some
  /// files before it, and recovery starts at the snapshot either way.
  ///
  /// - Parameters:
  ///   - store: The store this recorder records.
  ///   - compacting: Whether to remove the files before the snapshot (`true` by default).
  /// - Returns: The snapshot's file and how many files were removed.
  /// - Throws: ``JournalError`` with ``JournalError/Code/storeBusy`` when every read raced an
  ///   action (nothing was written); the `EncodingError` of the state; the first `IOError` of
  ///   the writes, syncs or removals (the snapshot is then not known to be durable, and no
  ///   file was removed unless it was).
  ///
  /// ```swift
  /// // On a timer, or every 10,000 actions:
  /// let snapshot = try await recorder.snapshot(of: store)
  /// print("snapshot in", snapshot.file, "removed", snapshot.removedFiles, "files")
  /// ```
  @discardableResult
  public func snapshot<State: Codable & Sendable>(
    of store: Store<State, Action>, compacting: Bool = true
  ) async throws -> JournalSnapshotSummary {
    var written: Int?
    for _ in 0..<Self.snapshotAttempts {
      let before = core.withLock { $0.seen }
      let state = await store.state
      let encoded = JournalBytes()
      try JournalValueEncoder(into: encoded).encode(state)
      let checksum = try StateChecksum.of(state)
      let bytes = encoded.bytes
      // Reduce and record run together with the store's consumer lock held, and the state
      // read takes it too: an unchanged count means no action fell between them.
      let result: Int?? = core.withLock { core in
        guard core.seen == before else { return .none }
        return .some(core.snapshot(state: bytes, checksum: checksum))
      }
      if let result {
        guard let index = result else {
          throw JournalError(
            file: JournalFormat.filePath(path, index: 0), offset: 0,
            problem: .storeBusy("the recorder is finished"))
        }
        written = index
        break
      }
      await Task.yield()
    }
    guard let index = written else {
      throw JournalError(
        file: JournalFormat.filePath(path, index: 0), offset: 0,
        problem: .storeBusy(
          "the store reduced an action during each of \(Self.snapshotAttempts) reads"))
    }
    return try await completeSnapshot(in: index, compacting: compacting)
  }

  /// Writes a snapshot of `state`, which must be the state of a store that reduces nothing
  /// more (an evicted store's final state), then does what
  /// ``snapshot(of:compacting:)`` does after its write.
  func snapshot<State: Codable>(
    finalState state: State, compacting: Bool
  ) async throws -> JournalSnapshotSummary {
    let encoded = JournalBytes()
    try JournalValueEncoder(into: encoded).encode(state)
    let checksum = try StateChecksum.of(state)
    let bytes = encoded.bytes
    guard let index = core.withLock({ $0.snapshot(state: bytes, checksum: checksum) }) else {
      throw JournalError(
        file: JournalFormat.filePath(path, index: 0), offset: 0,
        problem: .storeBusy("the recorder is finished"))
    }
    return try await completeSnapshot(in: index, compacting: compacting)
  }

  /// Waits until the snapshot in file `index` is durable, then removes the files before it
  /// when `compacting`.
  private func completeSnapshot(
    in index: Int, compacting: Bool
  ) async throws -> JournalSnapshotSummary {
    // Nothing is removed before the snapshot is on disk: a crash then still has the files.
    try await waitUntilDurable()
    let removed =
      compacting ? try await JournalFiles.remove(of: path, below: index, engine: writer.engine) : 0
    return JournalSnapshotSummary(
      file: JournalFormat.filePath(path, index: index), removedFiles: removed)
  }

  private static var snapshotAttempts: Int { 1_000 }

  /// `false` unless the instrumentation it forwards to times reduces: a journal keeps each
  /// action's enqueue time only, so the store reads the clock once per action for it instead
  /// of timing every reduce (`spool bench journal`).
  ///
  /// ```swift
  /// try ActionJournal<Counter.Action>.recording(to: path).timesReduces  // false
  /// ```
  public var timesReduces: Bool { next?.timesReduces ?? false }

  /// Records `action`; called by the store after each reduce.
  ///
  /// ```swift
  /// journal.actionReduced(.increment, enqueuedAt: 100, startedAt: 150, endedAt: 190)
  /// ```
  public func actionReduced(
    _ action: Action, enqueuedAt: UInt64, startedAt: UInt64, endedAt: UInt64
  ) {
    // Budget: no allocation for a JournalCodable action, none beyond `encode(to:)` for a
    // Codable one (JournalRecorderAllocationTests).
    let first = core.withLock { $0.record(action, enqueuedAt: enqueuedAt) }
    if first { schedule?.signal() }
    next?.actionReduced(action, enqueuedAt: enqueuedAt, startedAt: startedAt, endedAt: endedAt)
  }

  /// Forwards to ``next``; effects are not recorded (the actions they send are).
  ///
  /// ```swift
  /// journal.effectStarted(by: .load, at: 200)
  /// ```
  public func effectStarted(by action: Action, at time: UInt64) {
    next?.effectStarted(by: action, at: time)
  }

  /// Forwards to ``next``.
  ///
  /// ```swift
  /// journal.effectEnded(by: .load, startedAt: 200, endedAt: 5_200, outcome: .finished)
  /// ```
  public func effectEnded(
    by action: Action, startedAt: UInt64, endedAt: UInt64, outcome: EffectOutcome
  ) {
    next?.effectEnded(by: action, startedAt: startedAt, endedAt: endedAt, outcome: outcome)
  }

  /// Writes the end record with the checksum of `finalState`, and waits until every record is
  /// on disk (the last file is synced and closed).
  ///
  /// Call it after the store finished (`await store.finish()`); actions the store reduces
  /// afterwards are not recorded (they count as dropped). A second call does nothing more.
  ///
  /// - Parameter finalState: The store's state at the end of the run. Its checksum is that of
  ///   its binary encoding with keyed containers in key order (see the SpoolJournal article).
  /// - Returns: What was written.
  /// - Throws: The first `IOError` of the writes (the journal then ends early), or the
  ///   `EncodingError` of `finalState`.
  ///
  /// ```swift
  /// await store.finish()
  /// let summary = try await journal.finish(finalState: await store.state)
  /// print(summary.actions, "actions in", summary.files, "files")
  /// ```
  @discardableResult
  public func finish<State: Encodable>(finalState: State) async throws -> JournalSummary {
    try await finish(checksum: StateChecksum.of(finalState))
  }

  /// Writes the end record without a state checksum (a replay then cannot verify its final
  /// state), and waits until every record is on disk.
  ///
  /// ```swift
  /// try await journal.finish()
  /// ```
  @discardableResult
  public func finish() async throws -> JournalSummary {
    try await finish(checksum: nil)
  }

  private func finish(checksum: UInt64?) async throws -> JournalSummary {
    // Released even when the last writes fail: the recorder takes no more records either way,
    // and the next recorder continues after what reached the disk.
    defer { lock.release() }
    schedule?.stop()
    let (recorded, dropped, failure, limited) = core.withLock { core in
      core.finish(stateChecksum: checksum)
      return (core.recorded, core.dropped, core.encodingFailure, core.stoppedAtLimit)
    }
    let written = try await writer.finish()
    return JournalSummary(
      actions: recorded, droppedActions: dropped, files: written.files, bytes: written.bytes,
      stoppedAtLimit: limited, encodingFailure: failure, durableSyncs: writer.durableSyncs)
  }
}

/// What a ``JournalRecorder`` wrote, returned by ``JournalRecorder/finish(finalState:)``.
///
/// ```swift
/// let summary = try await journal.finish(finalState: await store.state)
/// precondition(summary.droppedActions == 0)
/// ```
public struct JournalSummary: Sendable, Hashable {
  /// Actions recorded.
  public var actions: Int
  /// Actions not recorded: reduced after the size limit or after `finish`, or whose encoding
  /// threw.
  public var droppedActions: Int
  /// Files written.
  public var files: Int
  /// Bytes written, over all files.
  public var bytes: Int
  /// Whether recording stopped because the last allowed file was full.
  public var stoppedAtLimit: Bool
  /// The first encoding error, if an action could not be encoded.
  public var encodingFailure: String?
  /// The syncs (`fdatasync`) made for ``JournalRecorder/waitUntilDurable()``: with group
  /// commit, concurrent waiters share one, so `actions / durableSyncs` is the number of
  /// acknowledgements each sync paid for. The sync of ``JournalRecorder/finish(finalState:)``
  /// is not counted.
  public var durableSyncs: Int = 0
}

/// What ``JournalRecorder/snapshot(of:compacting:)`` wrote and removed.
///
/// ```swift
/// let summary = try await recorder.snapshot(of: store)
/// print(summary.file, summary.removedFiles)
/// ```
public struct JournalSnapshotSummary: Sendable, Hashable {
  /// The file that starts with the snapshot (`path.N.journal`).
  public var file: String
  /// Files before it that compaction removed (0 when not compacting).
  public var removedFiles: Int
}

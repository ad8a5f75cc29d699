#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif
import SpoolCore
import SpoolIO
import Synchronization

/// The shared part of a ``SharedJournal`` that every store's recorder writes through: the one
/// core (under one lock), the one writer and the one flush schedule.
final class SharedJournalSink: Sendable {
  let path: String
  let engine: IOEngine
  let writer: JournalWriter
  let core: Mutex<SharedJournalCore>
  private let schedule: JournalFlushSchedule?
  /// Index files being written for sealed segments; ``close()`` waits for them.
  private let sealing = Mutex<[Int: Task<Void, Never>]>([:])
  private let nextSeal = Atomic<Int>(0)
  /// Called by a compaction after each of its steps; a test sets it to stop one partway, as a
  /// crash or an I/O failure there would.
  let compactionFault = Mutex<(@Sendable (SharedJournalCompactionStep) throws -> Void)?>(nil)
  /// The most bytes of records one compaction copies (stores whose records would go past it
  /// stay where they are until a later compaction): the copies' segment stays under the
  /// segment size limit, 1 GiB (a record's offset is 32-bit), with room for its header. A test
  /// lowers it to reach the limit without writing a GiB.
  let compactionCopyLimit = Atomic<Int>((1 << 30) - (1 << 17))
  /// Called by a recovery once it has taken a store's extents, before it reads them, with the
  /// store's key and the attempt's number (0 first); a test sets it to hold a recovery there
  /// while a compaction moves the records it is about to read.
  let recoveryPause = Mutex<(@Sendable (_ key: String, _ attempt: Int) async -> Void)?>(nil)
  /// The journal's lock, held from `open` until ``close()`` ends (or the sink is released).
  private let lock: JournalLock

  init(
    path: String, engine: IOEngine, configuration: JournalConfiguration,
    core: sending SharedJournalCore, lock: JournalLock
  ) {
    self.lock = lock
    self.path = path
    self.engine = engine
    writer = core.writer
    self.core = Mutex(core)
    schedule = configuration.flushInterval.map { JournalFlushSchedule(interval: $0) }
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

  /// Records `action` for the store in `slot`.
  @inline(__always)
  func record<Action: Sendable>(
    slot: Int, generation: UInt32, action: Action, enqueuedAt: UInt64
  ) {
    let due = core.withLock {
      $0.record(slot: slot, generation: generation, action: action, enqueuedAt: enqueuedAt)
    }
    if !due.isEmpty { handle(due) }
  }

  func handle(_ due: SharedJournalCore.Due) {
    if due.contains(.flush) { schedule?.signal() }
    if due.contains(.seal) { writeSealedIndexes() }
  }

  /// Writes the index files of the segments sealed so far, each once its segment is synced.
  private func writeSealedIndexes() {
    let seals = core.withLock { core in
      defer { core.seals.removeAll() }
      return core.seals
    }
    for seal in seals {
      let id = nextSeal.add(1, ordering: .relaxed).newValue
      let task = Task {
        // Best effort: a segment whose index is missing is scanned, and its index rebuilt,
        // when the journal is opened next; so a failure here loses nothing.
        do {
          try await writer.waitUntilDurable(through: seal.through)
          try await writeIndex(seal)
        } catch {}
        _ = sealing.withLock { $0.removeValue(forKey: id) }
      }
      sealing.withLock { $0[id] = task }
    }
  }

  /// Writes the index file of `seal`'s segment atomically: a torn index is never left behind.
  func writeIndex(_ seal: SharedJournalCore.Seal) async throws {
    try await FileOperations.writeFileAtomically(
      SharedJournalIndexFile.path(path, segment: seal.segment), seal.bytes, engine: engine)
  }

  /// Waits until everything recorded before the call, for every store, is written and synced.
  func waitUntilDurable() async throws {
    let through = core.withLock { core in
      writer.submittedChunks + (core.hasPendingBytes ? 1 : 0)
    }
    try await writer.waitUntilDurable(through: through)
  }

  /// Flushes what was recorded and waits until it is written (not synced).
  func flush() async throws {
    core.withLock { $0.flush() }
    try await writer.waitUntilWritten()
  }

  /// Stops recording, writes and syncs the rest, and writes the last segment's index.
  func close() async throws -> (records: Int, dropped: Int, files: Int, bytes: Int) {
    // Released even when the last writes fail: the journal takes no more records either way,
    // and the next open reads what reached the disk.
    defer { lock.release() }
    schedule?.stop()
    let (seal, recorded, dropped) = core.withLock { core in
      (core.finish(), core.recorded, core.dropped)
    }
    let written: (files: Int, bytes: Int, droppedBytes: Int)
    do {
      written = try await writer.finish()
      if let seal { try await writeIndex(seal) }
    } catch {
      await waitForCompaction()
      throw error
    }
    await waitForSeals()
    await waitForCompaction()
    return (recorded, dropped, written.files, written.bytes)
  }

  /// Waits until no compaction runs. A running compaction may still remove segments: the lock
  /// is released only after it ends, or another run could open the journal and read a
  /// segment removed under it.
  private func waitForCompaction() async {
    await withCheckedContinuation { continuation in
      let endedAlready = core.withLock { core -> Bool in
        guard core.isCompacting else { return true }
        core.compactionWaiters.append(continuation)
        return false
      }
      if endedAlready { continuation.resume() }
    }
  }

  /// Waits until the index files of the segments sealed so far are written (or failed).
  func waitForSeals() async {
    // A task that ended before it was entered stays entered: awaited here, then taken out.
    // Concurrent callers (a compaction, `close`) each await every task they find.
    while true {
      let pending = sealing.withLock { Array($0) }
      if pending.isEmpty { break }
      for (_, task) in pending { await task.value }
      sealing.withLock { tasks in
        for (id, _) in pending { tasks.removeValue(forKey: id) }
      }
    }
  }
}

/// Records the actions of one store of a ``SharedJournal``: the store's instrumentation, made
/// by ``SharedJournal/makeStore(for:initialState:recovered:reducer:)``.
///
/// Every store's recorder appends to the same journal, under one lock, so records of all
/// stores share one writer, one timed flush and one sync.
///
/// ```swift
/// let store = try await journal.makeStore(for: cartID, initialState: Cart.State()) { Cart() }
/// await store.send(.add(item))
/// try await journal.waitUntilDurable()  // the add survives a crash from here on
/// ```
public final class SharedJournalRecorder<Action: Codable & Sendable>: StoreInstrumentation {
  let sink: SharedJournalSink
  let slot: Int
  let generation: UInt32

  init(sink: SharedJournalSink, slot: Int, generation: UInt32) {
    self.sink = sink
    self.slot = slot
    self.generation = generation
  }

  /// `false`: the journal keeps each action's enqueue time only.
  ///
  /// ```swift
  /// recorder.timesReduces  // false
  /// ```
  public var timesReduces: Bool { false }

  /// Records `action`; called by the store after each reduce.
  ///
  /// ```swift
  /// recorder.actionReduced(.increment, enqueuedAt: 100, startedAt: 150, endedAt: 190)
  /// ```
  public func actionReduced(
    _ action: Action, enqueuedAt: UInt64, startedAt: UInt64, endedAt: UInt64
  ) {
    sink.record(slot: slot, generation: generation, action: action, enqueuedAt: enqueuedAt)
  }

  /// Does nothing: effects are not recorded (the actions they send are).
  ///
  /// ```swift
  /// recorder.effectStarted(by: .load, at: 200)
  /// ```
  public func effectStarted(by action: Action, at time: UInt64) {}

  /// Does nothing: effects are not recorded.
  ///
  /// ```swift
  /// recorder.effectEnded(by: .load, startedAt: 200, endedAt: 5_200, outcome: .finished)
  /// ```
  public func effectEnded(
    by action: Action, startedAt: UInt64, endedAt: UInt64, outcome: EffectOutcome
  ) {}

  /// Waits until every action recorded before the call, of this store and of every other
  /// store of the journal, is written and synced: concurrent waiters of all stores share one
  /// sync (group commit).
  ///
  /// - Throws: The first `IOError` of the writes or syncs; `CancellationError`.
  ///
  /// ```swift
  /// await store.send(.add(item))
  /// try await recorder.waitUntilDurable()
  /// ```
  public func waitUntilDurable() async throws {
    try await sink.waitUntilDurable()
  }
}

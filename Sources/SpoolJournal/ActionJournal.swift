#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif
import SpoolCore
import SpoolIO

/// A journal of a store's actions on disk: record one with
/// ``recording(to:configuration:engine:forwardingTo:)``, rebuild the store's state from it after
/// a restart with ``recover(initialState:reducer:)``, read it with ``load()``, replay it into a
/// fresh store with ``replay(into:pace:)``.
///
/// A journal at `path` is the files `path.0.journal`, `path.1.journal`, … (rotated by size,
/// one run of files per recorder, and the files before a snapshot removed by compaction), each
/// starting with a header that names the action type, followed by length-prefixed, CRC-checked
/// records of the actions with their enqueue times, snapshots of the state, and, at the end of
/// a run, an end record with the checksum of the store's final state.
/// <doc:RecordingAndReplaying> describes the format and the guarantees.
///
/// The store is an actor, and a journal records what it reduced, in order: the replay enqueues
/// the same actions into a store whose reducer discards effects (the actions effects sent back
/// are in the journal already), then compares the final state's checksum with the recorded one.
///
/// ```swift
/// // Record.
/// let recorder = try ActionJournal<Counter.Action>.recording(to: "/var/tmp/counter")
/// let store = Store(initialState: Counter.State(), instrumentation: recorder) { Counter() }
/// for _ in 0..<1_000 { store.enqueue(.increment) }
/// await store.finish()
/// try await recorder.finish(finalState: await store.state)
///
/// // Replay, later or elsewhere.
/// let journal = ActionJournal<Counter.Action>(path: "/var/tmp/counter")
/// let replay = Store(initialState: Counter.State()) { Counter().discardingEffects() }
/// let result = try await journal.replay(into: replay, pace: .fullSpeed)
/// print(result.actions, result.elapsed, result.verification)
/// ```
public struct ActionJournal<Action: Codable & Sendable>: Sendable {
  /// The journal's path, without the `.N.journal` suffix of its files.
  public let path: String
  /// The engine that reads the files.
  public let engine: IOEngine

  /// A journal at `path` (its files are `path.0.journal`, `path.1.journal`, …).
  ///
  /// ```swift
  /// let journal = ActionJournal<Counter.Action>(path: "/var/tmp/counter")
  /// ```
  public init(path: String, engine: IOEngine = .shared) {
    self.path = path
    self.engine = engine
  }

  /// The file at `index`: `path.index.journal`.
  ///
  /// ```swift
  /// journal.file(0)  // "/var/tmp/counter.0.journal"
  /// ```
  public func file(_ index: Int) -> String { JournalFormat.filePath(path, index: index) }

  /// A recorder that writes a new journal at `path`, to give a store as its instrumentation.
  ///
  /// Files of an earlier journal at `path` are replaced: `path.0.journal` is truncated when the
  /// first records are written, and the earlier journal's other files are removed then. To go
  /// on with an existing journal instead, recover it (``recover(initialState:reducer:)``) and
  /// record with ``JournalRecovery/continueRecording(configuration:engine:forwardingTo:)``.
  ///
  /// - Parameters:
  ///   - path: The journal's path; its folder must exist and be writable.
  ///   - configuration: File size, file count and buffer size.
  ///   - engine: The engine that writes the files.
  ///   - next: An instrumentation every call is forwarded to, such as a `LatencyRecorder`.
  /// The recorder holds the journal's lock (`flock` on `path.lock`) until
  /// ``JournalRecorder/finish(finalState:)``: a second recorder of the same path, in this
  /// process or another, is refused while the first records. The kernel releases the lock of
  /// a process that dies, so a crash never leaves the journal locked.
  ///
  /// - Throws: ``JournalError`` with an `IOError` when the folder is missing or not writable,
  ///   ``JournalError/Code/notARegularFile`` when `path.0.journal` exists and is not
  ///   a regular file (a device, a FIFO, a socket, a directory), or
  ///   ``JournalError/Code/inUse``, naming the lock file, while another recorder records the
  ///   journal.
  ///
  /// ```swift
  /// let latency = LatencyRecorder<Counter.Action>()
  /// let recorder = try ActionJournal<Counter.Action>.recording(
  ///   to: "/var/tmp/counter", forwardingTo: latency)
  /// let store = Store(initialState: Counter.State(), instrumentation: recorder) { Counter() }
  /// ```
  public static func recording(
    to path: String,
    configuration: JournalConfiguration = JournalConfiguration(),
    engine: IOEngine = .shared,
    forwardingTo next: (any StoreInstrumentation<Action>)? = nil
  ) throws(JournalError) -> JournalRecorder<Action> {
    try recorder(
      at: path, configuration: configuration, engine: engine, next: next,
      start: JournalContinuation())
  }

  /// A recorder whose first file is `start.index`, after checking that the folder is writable
  /// and that nothing but a regular file is at that file's path.
  static func recorder(
    at path: String, configuration: JournalConfiguration, engine: IOEngine,
    next: (any StoreInstrumentation<Action>)?, start: JournalContinuation
  ) throws(JournalError) -> JournalRecorder<Action> {
    let first = JournalFormat.filePath(path, index: start.index)
    let folder = FileOperations.directoryName(of: path)
    if access(folder, W_OK | X_OK) != 0 {
      let problem = IOError(errno: errno, operation: "access", target: .path(folder))
      throw JournalError(file: first, offset: 0, problem: .io(problem))
    }
    if let kind = JournalFileReading.nonRegularKind(at: first) {
      throw JournalError(file: first, offset: 0, problem: .notARegularFile(kind))
    }
    let lock = try JournalLock(path: path, holder: "JournalRecorder")
    return JournalRecorder(
      path: path, configuration: configuration, engine: engine, next: next, lock: lock,
      start: start)
  }

  /// Reads and checks every file of the journal, and decodes its actions.
  ///
  /// A journal cut off by the end of a file (the recording process was killed) is not an
  /// error: the contents hold every whole record before the cut, and
  /// ``JournalContents/unverifiable`` says where it was.
  ///
  /// - Throws: ``JournalError`` naming the file and byte offset: a missing first file, a
  ///   path that is not a regular file (checked before anything is read, so a device or a FIFO
  ///   never blocks the engine), an empty or foreign file, another version or action type, a
  ///   corrupt header or record, an action that does not decode.
  ///
  /// ```swift
  /// let contents = try await journal.load()
  /// print(contents.actions.count, "actions in", contents.files, "files")
  /// ```
  public func load() async throws(JournalError) -> JournalContents<Action> {
    var actions: [Action] = []
    var times: [UInt64] = []
    var contents: JournalContents<Action>
    do {
      contents = try await readFromFirst { action, time in
        actions.append(action)
        times.append(time)
      }
    } catch let error as JournalError {
      throw error
    } catch {
      preconditionFailure("Internal inconsistency: loading a journal threw \(error)")
    }
    contents.actions = actions
    contents.enqueueTimes = times
    return contents
  }

  /// Replays the journal into `store` as ``JournalContents/replay(into:pace:)`` does, reading
  /// it from the files as it goes, so that memory holds one file, not the whole journal.
  ///
  /// The journal is read twice: first to check all of it (a bad record anywhere fails before
  /// the store has seen one action), then to replay it. A journal that a recorder is still
  /// writing may grow between the two; the replay then stops where the check did. One that is
  /// replaced or damaged between the two passes is caught only as it is read again: the
  /// replay then fails partway, with the actions before the failure already enqueued.
  ///
  /// - Throws: ``JournalError``: the journal could not be read, or the replayed state's
  ///   checksum is not the recorded one
  ///   (``JournalError/Code/stateMismatch``, naming both);
  ///   `CancellationError` when cancelled while pacing.
  ///
  /// ```swift
  /// let store = Store(initialState: Counter.State()) { Counter().discardingEffects() }
  /// let result = try await journal.replay(into: store, pace: .fullSpeed)
  /// ```
  @discardableResult
  public func replay<State: Codable & Sendable>(
    into store: Store<State, Action>, pace: JournalReplayPace = .fullSpeed
  ) async throws -> JournalReplayResult {
    let checked = try await readFromFirst { _, _ in }
    let clock = ContinuousClock()
    let start = clock.now
    let replayed =
      switch pace {
      case .fullSpeed: try await replay(checked, into: store) { _ in }
      case .recorded(let pacing): try await replayPaced(checked, into: store, clock: pacing)
      }
    await store.finish()
    return try await checked.verify(store, actions: replayed, elapsed: clock.now - start)
  }

  /// Reads the journal again and enqueues its first `checked.recordedActions` actions into
  /// `store`, each after `wait(itsEnqueueTime)`; returns how many it enqueued.
  private func replay<State: Sendable>(
    _ checked: JournalContents<Action>, into store: Store<State, Action>,
    wait: (UInt64) async throws -> Void
  ) async throws -> Int {
    var enqueued = 0
    _ = try await readFromFirst { action, time in
      guard enqueued < checked.recordedActions else { return }
      try await wait(time)
      store.enqueue(action)
      enqueued += 1
    }
    return enqueued
  }

  private func replayPaced<State: Sendable, C: Clock<Duration>>(
    _ checked: JournalContents<Action>, into store: Store<State, Action>, clock: C
  ) async throws -> Int {
    var first: UInt64?
    var start = clock.now
    return try await replay(checked, into: store) { time in
      guard let base = first else {
        first = time
        start = clock.now
        return
      }
      // Times are not monotonic across producers; an earlier time is due at once.
      let offset = time >= base ? time - base : 0
      let deadline = start.advanced(by: .nanoseconds(Int64(clamping: offset)))
      if clock.now < deadline {
        try await clock.sleep(until: deadline, tolerance: nil)
      }
    }
  }
}

import SpoolCore
import SpoolIO

/// A store's state rebuilt from its journal by ``ActionJournal/recover(initialState:reducer:)``,
/// and the way to go on recording it.
///
/// ```swift
/// let recovery = try await journal.recover(initialState: Cart.State()) { Cart() }
/// if case .unverified(let why) = recovery.verification { logger.info("\(why)") }
/// let recorder = try recovery.continueRecording()
/// let store = Store(initialState: recovery.state, instrumentation: recorder) { Cart() }
/// ```
public struct JournalRecovery<State: Sendable, Action: Codable & Sendable>: Sendable {
  /// The journal's path, without the `.N.journal` suffix of its files.
  public let path: String
  let engine: IOEngine
  /// The recovered state: the newest snapshot's, with the actions after it reduced.
  public var state: State
  /// The actions reduced after the snapshot (after the initial state without one).
  public var actions: Int
  /// The file whose snapshot recovery started from; `nil` when it started from the initial
  /// state.
  public var snapshotFile: String?
  /// Files read.
  public var files: Int
  /// Bytes read, over all files.
  public var bytes: Int
  /// ``JournalVerification/verified(checksum:)`` when the journal ends with an end record
  /// holding a state checksum, and the recovered state has it; otherwise why not (a cut-off
  /// journal, the normal case after a crash, names the file and byte of the cut).
  public var verification: JournalVerification
  /// Where a recorder that continues the journal starts.
  let continuation: JournalContinuation

  init(
    path: String, engine: IOEngine, state: State, actions: Int, snapshotFile: String?,
    files: Int, bytes: Int, verification: JournalVerification,
    continuation: JournalContinuation
  ) {
    self.path = path
    self.engine = engine
    self.state = state
    self.actions = actions
    self.snapshotFile = snapshotFile
    self.files = files
    self.bytes = bytes
    self.verification = verification
    self.continuation = continuation
  }

  /// A recorder that continues the journal: a new run, in a new file after the last one
  /// present, so that nothing is ever appended to a file that an earlier run left (recovery
  /// cut it back to its last whole record, or, if that failed, skips its torn tail).
  ///
  /// Give it to the store that starts from ``state``. Recovering the journal again later
  /// replays the earlier runs and this one, in order. Call it once per recovery: two
  /// recorders continuing the same journal would write the same file, so the second is
  /// refused while the first records (the journal's lock, as for
  /// ``ActionJournal/recording(to:configuration:engine:forwardingTo:)``).
  ///
  /// - Parameters:
  ///   - configuration: File size, file count and buffer size.
  ///   - engine: The engine that writes the files; the journal's by default.
  ///   - next: An instrumentation every call is forwarded to, such as a `LatencyRecorder`.
  /// - Throws: ``JournalError`` with an `IOError` when the folder is missing or not writable,
  ///   ``JournalError/Code/notARegularFile`` when something other than a regular file is
  ///   at the new file's path, or ``JournalError/Code/inUse``, naming the lock file, while
  ///   another recorder records the journal.
  ///
  /// ```swift
  /// let recorder = try recovery.continueRecording()
  /// let store = Store(initialState: recovery.state, instrumentation: recorder) { Cart() }
  /// ```
  public func continueRecording(
    configuration: JournalConfiguration = JournalConfiguration(),
    engine: IOEngine? = nil,
    forwardingTo next: (any StoreInstrumentation<Action>)? = nil
  ) throws(JournalError) -> JournalRecorder<Action> {
    try ActionJournal<Action>.recorder(
      at: path, configuration: configuration, engine: engine ?? self.engine, next: next,
      start: continuation)
  }
}

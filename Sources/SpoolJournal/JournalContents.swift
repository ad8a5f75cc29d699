import SpoolCore
import SpoolIO

/// A journal read into memory: its actions, their enqueue times, and what its end says.
///
/// Loading once and replaying many times keeps the decoding out of what a benchmark measures.
///
/// ```swift
/// let contents = try await ActionJournal<Counter.Action>(path: "/var/tmp/counter").load()
/// for _ in 0..<5 {
///   let store = Store(initialState: Counter.State()) { Counter().discardingEffects() }
///   let result = try await contents.replay(into: store)
///   print(result.elapsed)
/// }
/// ```
public struct JournalContents<Action: Codable & Sendable>: Sendable {
  /// The journal's path, without the `.N.journal` suffix of its files.
  public var path: String
  /// The recorded actions, in the order the store reduced them.
  public var actions: [Action] = []
  /// Each action's enqueue time (ns on `CLOCK_MONOTONIC` of the recording process).
  public var enqueueTimes: [UInt64] = []
  /// Files read.
  public var files = 0
  /// Bytes read, over all files.
  public var bytes = 0
  /// The checksum of the recorded final state, when the journal is complete and has one.
  public var stateChecksum: UInt64?
  /// Actions the recorder reduced but did not record (see ``JournalSummary``).
  public var droppedActions = 0
  /// Why a replay of this journal cannot verify its final state (cut off, no checksum,
  /// dropped actions), naming the file and byte; `nil` when it can.
  public var unverifiable: JournalError?
  /// The last file and the offset of its end record, named by a state mismatch.
  var endFile: String?
  var endOffset = 0
  /// Action records read (``actions`` holds them after ``ActionJournal/load()``, not after a
  /// streaming read).
  var recordedActions = 0
  /// The last file read, and the run it belongs to (0 when none had a header): where a
  /// recorder that continues the journal starts, and the run it names as its previous one.
  var lastIndex = -1
  var lastRunID: UInt64 = 0
  /// The last file, when it may keep what its writer reserved past its end: where its whole
  /// records end, for recovery to release the rest. Set for a file without an end or
  /// rotation record (a killed process, a failed write), for one that ends with its end
  /// record (a process killed between `finish`'s sync and its truncation), and for one that
  /// ends with a rotation record when the next file is missing.
  var openTail: JournalOpenTail?

  init(path: String) {
    self.path = path
  }

  /// Enqueues every action into `store` (at full speed or at the recorded pace), waits until
  /// the store has reduced them and its effects ended, then compares the checksum of its state
  /// with the recorded one.
  ///
  /// The store should be a fresh one, with the recorded run's initial state and a reducer
  /// whose effects are discarded (``SpoolCore/Reducer/discardingEffects()``): the journal holds
  /// the actions effects sent back, so running the effects again would reduce them twice.
  ///
  /// - Parameters:
  ///   - store: The store to replay into.
  ///   - pace: `.fullSpeed`, or `.recorded(clock)` to enqueue each action when as much time
  ///     has passed on `clock` since the first as had passed when it was recorded.
  /// - Returns: Counts, time taken, and whether the final state was verified.
  /// - Throws: ``JournalError`` with ``JournalError/Code/stateMismatch``
  ///   when the checksums differ; `CancellationError` when cancelled while pacing.
  ///
  /// ```swift
  /// let result = try await contents.replay(into: store, pace: .recorded(ContinuousClock()))
  /// if case .unverified(let why) = result.verification { print(why) }
  /// ```
  @discardableResult
  public func replay<State: Codable & Sendable>(
    into store: Store<State, Action>, pace: JournalReplayPace = .fullSpeed
  ) async throws -> JournalReplayResult {
    let clock = ContinuousClock()
    let start = clock.now
    try await pace.enqueue(actions, enqueueTimes: enqueueTimes, into: store)
    await store.finish()
    return try await verify(store, actions: actions.count, elapsed: clock.now - start)
  }

  /// The result of a replay of `actions` actions into `store`, which has finished: verified
  /// when the journal has a state checksum and `store`'s state has it.
  func verify<State: Codable & Sendable>(
    _ store: Store<State, Action>, actions: Int, elapsed: Duration
  ) async throws -> JournalReplayResult {
    var result = JournalReplayResult(
      actions: actions, files: files, elapsed: elapsed,
      verification: .unverified(unverifiable ?? JournalError(
        file: path, offset: 0, problem: .noStateChecksum("the journal has no end record"))))
    if let recorded = stateChecksum {
      let replayed = try StateChecksum.of(await store.state)
      guard replayed == recorded else {
        throw JournalError(
          file: endFile ?? path, offset: endOffset,
          problem: .stateMismatch(recorded: recorded, replayed: replayed))
      }
      result.verification = .verified(checksum: recorded)
    }
    return result
  }
}

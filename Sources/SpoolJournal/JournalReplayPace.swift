/// How fast ``JournalContents/replay(into:pace:)`` enqueues a journal's actions.
///
/// ```swift
/// try await journal.replay(into: store, pace: .fullSpeed)
/// try await journal.replay(into: store, pace: .recorded(ContinuousClock()))
/// // In tests: .recorded(TestClock()), advanced by the test.
/// ```
public enum JournalReplayPace: Sendable {
  /// Every action at once, as fast as the store takes them.
  case fullSpeed
  /// Each action when as much time has passed on the clock since the first action as had
  /// passed between their enqueue times when they were recorded.
  case recorded(any Clock<Duration>)
}

/// What a replay did: ``JournalContents/replay(into:pace:)``'s result.
///
/// ```swift
/// let result = try await journal.replay(into: store)
/// print("\(result.actions) actions in \(result.elapsed)")
/// ```
public struct JournalReplayResult: Sendable {
  /// Actions replayed.
  public var actions: Int
  /// Journal files they came from.
  public var files: Int
  /// From the first enqueue to the store's `finish()` returning, on `ContinuousClock`.
  public var elapsed: Duration
  /// Whether the replayed final state matched the recorded checksum.
  public var verification: JournalVerification
}

/// Whether a replay proved that it reproduced the recorded run.
///
/// ```swift
/// switch result.verification {
/// case .verified: print("reproduced")
/// case .unverified(let why): print(why)
/// }
/// ```
public enum JournalVerification: Sendable, Hashable {
  /// The replayed state's checksum is the recorded one.
  case verified(checksum: UInt64)
  /// There was nothing to compare with (the journal is cut off, or has no state checksum):
  /// the error says where and why. A mismatch is thrown, never reported here.
  case unverified(JournalError)
}

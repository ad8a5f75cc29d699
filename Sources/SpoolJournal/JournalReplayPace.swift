import SpoolCore

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

extension JournalReplayPace {
  /// Enqueues `actions` into `store` at this pace; `enqueueTimes` are their recorded enqueue
  /// times (nanoseconds, one per action), read only by ``recorded(_:)``. Without times, even
  /// at the recorded pace, every action is enqueued at once.
  func enqueue<State: Sendable, Action: Sendable>(
    _ actions: [Action], enqueueTimes: [UInt64], into store: Store<State, Action>
  ) async throws {
    guard case .recorded(let clock) = self, let first = enqueueTimes.first else {
      for action in actions { store.enqueue(action) }
      return
    }
    try await Self.enqueue(
      actions, enqueueTimes: enqueueTimes, from: first, into: store, on: clock)
  }

  private static func enqueue<State: Sendable, Action: Sendable, C: Clock<Duration>>(
    _ actions: [Action], enqueueTimes: [UInt64], from first: UInt64,
    into store: Store<State, Action>, on clock: C
  ) async throws {
    let start = clock.now
    for (action, time) in zip(actions, enqueueTimes) {
      // Times are not monotonic across producers; an earlier time is due at once.
      let offset = time >= first ? time - first : 0
      let deadline = start.advanced(by: .nanoseconds(Int64(clamping: offset)))
      if clock.now < deadline {
        try await clock.sleep(until: deadline, tolerance: nil)
      }
      store.enqueue(action)
    }
  }
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

import SpoolCore
import SpoolIO
import SpoolJournal

extension WorkloadDriver where State: Codable, Action: Codable {
  /// Replays a recorded `ActionJournal` (SpoolJournal) into the store: a real action stream, at
  /// full speed or at the pace it was recorded, measured as any driver is.
  ///
  /// The journal is read and decoded before the clock starts
  /// (``WorkloadContext/startMeasurement()``); the measurement is the enqueueing of every
  /// recorded action and the store reducing them. Afterwards the final state's checksum must be
  /// the one the recorder wrote when its store finished, so that a replay reproduces the run:
  /// a different state throws a `JournalError` naming both checksums, and a journal
  /// with nothing to compare with (cut off, or recorded without `finish(finalState:)`) fails
  /// the run with a ``WorkloadCheckError`` unless `requiringVerification` is `false`. A corrupt,
  /// foreign or other-type journal fails the run with the journal's one-line error (file and
  /// byte offset).
  ///
  /// Give the workload the recorded run's initial state and the feature's reducer with its
  /// effects discarded (`discardingEffects()`, SpoolJournal): the journal already holds the
  /// actions the effects sent back. The volume is the journal's, whatever `--actions` says.
  ///
  /// - Parameters:
  ///   - journal: The recording, all of its rotated files.
  ///   - pace: `.fullSpeed`, or `.recorded(clock)` for the recorded gaps between actions.
  ///   - requiringVerification: Whether a journal without a final-state checksum fails the run.
  ///
  /// ```swift
  /// Workload(
  ///   "checkout-replay",
  ///   summary: "yesterday's checkout traffic, replayed",
  ///   defaultActions: 0,
  ///   initialState: Cart.State(),
  ///   reducer: { Cart().discardingEffects() },
  ///   driver: .replaying(ActionJournal<Cart.Action>(path: "/var/tmp/checkout"))
  /// )
  /// ```
  public static func replaying(
    _ journal: ActionJournal<Action>,
    pace: JournalReplayPace = .fullSpeed,
    requiringVerification: Bool = true
  ) -> Self {
    WorkloadDriver(name: "replay") { store, context in
      let contents = try await journal.load()
      context.startMeasurement()
      let result = try await contents.replay(into: store, pace: pace)
      context.advance(by: result.actions)
      if requiringVerification, case .unverified(let why) = result.verification {
        throw WorkloadCheckError("the replay could not be verified: \(why)")
      }
      return result.actions
    }
  }
}

/// The grace period of a graceful shutdown: lets `finish` run for a while, then calls
/// `shutdown`, which must make `finish` return (by cancelling what it waits for).
enum GracefulStoreShutdown {
  /// Runs `finish` until it returns or `gracePeriod` runs out, whichever comes first, then
  /// `shutdown`, then waits for `finish` to return. Returns whether the grace period ran out
  /// before `finish` returned.
  ///
  /// When the calling task is cancelled, the grace period ends at once (the sleep throws).
  static func run(
    gracePeriod: Duration,
    finish: @escaping @Sendable () async -> Void,
    shutdown: @escaping @Sendable () async -> Void
  ) async -> Bool {
    await withTaskGroup(of: Bool.self) { group in
      group.addTask {
        await finish()
        return false
      }
      group.addTask {
        // Ends early when the group is cancelled: `finish` returned, or the caller was
        // cancelled. In every case the store shuts down next.
        try? await Task.sleep(for: gracePeriod)
        await shutdown()
        return true
      }
      guard let first = await group.next() else {
        preconditionFailure("Internal inconsistency: a task group of two tasks returned none")
      }
      // Wakes the sleeper when `finish` came first; the group then waits for both.
      group.cancelAll()
      return first
    }
  }
}

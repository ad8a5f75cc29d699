/// The clock of a ``StoreRegistry``, as durations since the registry was created: one type
/// for whatever `Clock<Duration>` the registry was given (a test clock drives its eviction).
struct RegistryClock: Sendable {
  /// The time elapsed since the registry was created.
  let now: @Sendable () -> Duration
  /// Sleeps until the given time since the registry was created; throws when cancelled.
  let sleep: @Sendable (_ until: Duration) async throws -> Void

  init<C: Clock<Duration>>(_ clock: C) {
    let start = clock.now
    now = { start.duration(to: clock.now) }
    sleep = { try await clock.sleep(until: start.advanced(by: $0), tolerance: nil) }
  }
}

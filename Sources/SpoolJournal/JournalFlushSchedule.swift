import Synchronization

/// When a recorder's timed flush runs: one task that sleeps on a continuation, without a timer,
/// until a record arrives in an empty buffer, then flushes one interval later.
///
/// Invariants: the task is suspended (no wake-up, no timer) whenever no record waits to be
/// written; a record that arrives while the task sleeps or flushes is never left waiting for a
/// signal that was lost (`signaled` keeps it); ``stop()`` ends the task at once, whatever it is
/// doing, so that an idle recorder's `finish` returns without waiting for an interval.
final class JournalFlushSchedule: Sendable {
  private struct State {
    var waiter: CheckedContinuation<Bool, Never>?
    var signaled = false
    var stopped = false
  }

  private let state = Mutex(State())
  private let task = Mutex<Task<Void, Never>?>(nil)

  private let interval: Duration

  /// A schedule that flushes `interval` after each ``signal()``, once ``start(_:)`` gave it
  /// what to call.
  init(interval: Duration) {
    self.interval = interval
  }

  /// Starts the task: after each ``signal()``, it waits the interval and calls `flush`, which
  /// returns `false` once there is nothing more to flush for (the recorder is gone).
  ///
  /// The task holds the schedule until ``stop()``, which its owner must call (the recorder
  /// does in `finish` and in its `deinit`).
  func start(_ flush: @escaping @Sendable () -> Bool) {
    let interval = interval
    let started = Task.detached(priority: .utility) { [self] in
      while await nextSignal() {
        try? await Task.sleep(for: interval)
        if state.withLock({ $0.stopped }) || !flush() { return }
      }
    }
    task.withLock { $0 = started }
  }

  /// Waits until a signal (`true`) or a stop (`false`).
  private func nextSignal() async -> Bool {
    await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
      let resume: Bool? = state.withLock { state in
        if state.stopped { return false }
        if state.signaled {
          state.signaled = false
          return true
        }
        state.waiter = continuation
        return nil
      }
      if let resume { continuation.resume(returning: resume) }
    }
  }

  /// A record arrived in an empty buffer: flush one interval from now. Cheap (a lock, and at
  /// most one task resumption); called once per flush interval at most, never per action.
  func signal() {
    let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
      guard let waiter = state.waiter else {
        state.signaled = true
        return nil
      }
      state.waiter = nil
      return waiter
    }
    waiter?.resume(returning: true)
  }

  /// Ends the task now: a waiting task returns, a sleeping one is cancelled.
  func stop() {
    let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
      state.stopped = true
      defer { state.waiter = nil }
      return state.waiter
    }
    waiter?.resume(returning: false)
    task.withLock { $0?.cancel() }
  }
}

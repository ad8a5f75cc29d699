import Synchronization

/// Lets one task wait until other tasks have arrived a given number of times, without
/// polling: the baselines' way to know that every `Task` they started has done its work.
///
/// ```swift
/// let countdown = Countdown()
/// for _ in 0..<100 { Task { countdown.arrive() } }
/// await countdown.wait(until: 100)
/// ```
package final class Countdown: Sendable {
  private struct State {
    var arrived = 0
    var target = Int.max
    var waiter: CheckedContinuation<Void, Never>?
  }

  // Touched by every arriving task and by the one waiter; protected by the mutex.
  private let state = Mutex(State())

  package init() {}

  /// Counts one arrival; resumes the waiter when its target is reached.
  package func arrive() {
    let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
      state.arrived += 1
      guard state.arrived >= state.target, let waiter = state.waiter else { return nil }
      state.waiter = nil
      return waiter
    }
    waiter?.resume()
  }

  /// Arrivals so far.
  package var arrived: Int { state.withLock { $0.arrived } }

  /// Returns once `target` arrivals have been counted (at once if they have). One waiter at
  /// a time.
  package func wait(until target: Int) async {
    await withCheckedContinuation { continuation in
      let ready = state.withLock { state -> Bool in
        if state.arrived >= target { return true }
        precondition(state.waiter == nil, "Internal inconsistency: two waiters on a Countdown")
        state.target = target
        state.waiter = continuation
        return false
      }
      if ready { continuation.resume() }
    }
  }
}

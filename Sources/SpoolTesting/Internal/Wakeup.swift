import Synchronization

/// Wakes a test store that waits for effects to make progress on another thread.
///
/// In a deterministic test, every job of an effect runs on the test store's executor, drained by
/// the test store itself, so nobody ever waits here. Only an effect that awaits work outside the
/// test store's executor (a real network call, another actor) hands work back from another
/// thread; then ``wait(timeout:)`` returns as soon as it does, or when `timeout` has passed.
final class Wakeup: Sendable {
  private struct State {
    /// A signal that arrived while nobody waited; consumed by the next wait.
    var isSignaled = false
    var waiter: CheckedContinuation<Void, Never>?
    /// The current wait was cancelled (its timeout passed) before it installed its waiter.
    var isCancelled = false
  }

  /// Protected by the mutex; written by any thread that signals and by the waiting test.
  private let state = Mutex(State())

  /// Resumes the waiter, or lets the next wait return at once.
  func signal() {
    let waiter = state.withLock { state in
      guard let waiter = state.waiter else {
        state.isSignaled = true
        return nil as CheckedContinuation<Void, Never>?
      }
      state.waiter = nil
      return waiter
    }
    waiter?.resume()
  }

  /// Forgets a signal that arrived before the caller looked for work itself.
  func reset() {
    state.withLock { $0.isSignaled = false }
  }

  /// Suspends until ``signal()`` or until `timeout` has passed on the continuous clock.
  ///
  /// - Returns: Whether a signal arrived.
  func wait(timeout: Duration) async -> Bool {
    guard timeout > .zero else { return state.withLock { $0.isSignaled } }
    return await withTaskGroup(of: Bool.self) { group in
      group.addTask { await self.waitForSignal() }
      group.addTask {
        try? await Task.sleep(for: timeout)
        return false
      }
      let signaled = await group.next() ?? false
      group.cancelAll()
      return signaled
    }
  }

  private func waitForSignal() async -> Bool {
    // One wait at a time: the previous wait's tasks have all ended.
    state.withLock { $0.isCancelled = false }
    return await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let resumeNow = state.withLock { state in
          if state.isSignaled || state.isCancelled {
            state.isSignaled = false
            return true
          }
          state.waiter = continuation
          return false
        }
        if resumeNow { continuation.resume() }
      }
      return !Task.isCancelled
    } onCancel: {
      let waiter = state.withLock { state in
        state.isCancelled = true
        defer { state.waiter = nil }
        return state.waiter
      }
      waiter?.resume()
    }
  }
}

import Synchronization

/// The `plain-actor` baseline of the `cancellation` workload: an actor that keeps a handle to
/// its long task and cancels it before starting the next, as Swift code without Spool does.
package actor RestartingActor {
  private var task: Task<Void, Never>?
  private(set) var restarts = 0
  private let ended: Countdown

  /// - Parameter ended: Counts the tasks that ended, so the run can wait for all of them.
  package init(ended: Countdown) {
    self.ended = ended
  }

  package func restart(_ value: Int) {
    restarts += 1
    task?.cancel()
    let ended = self.ended
    task = Task {
      try? await Task.sleep(for: .seconds(3_600))
      ended.arrive()
    }
  }

  package func stop() {
    task?.cancel()
    task = nil
  }
}

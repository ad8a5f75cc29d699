import Dependencies
import Synchronization

/// The `plain-actor` baseline of the `cancellation` workload: an actor that keeps a handle to
/// its long task and cancels it before starting the next, as Swift code without Spool does.
///
/// With `readingClockDependency`, it is `plain-actor+dependency`: the same actor, sleeping on
/// the clock it reads with `@Dependency(\.continuousClock)` on every restart, as
/// `CancellationFeature`'s reducer does. Spool's ratio to it is its cost beyond that read
/// (swift-dependencies' lookup and the runtime's cast to `any Clock<Duration>`), which belongs
/// to the reducer, not to the store.
package actor RestartingActor {
  private var task: Task<Void, Never>?
  private(set) var restarts = 0
  private let ended: Countdown
  private let readingClockDependency: Bool
  @Dependency(\.continuousClock) private var clock

  /// - Parameters:
  ///   - ended: Counts the tasks that ended, so the run can wait for all of them.
  ///   - readingClockDependency: Whether each restart sleeps on the clock dependency (read
  ///     anew each time) rather than on `Task.sleep`.
  package init(ended: Countdown, readingClockDependency: Bool = false) {
    self.ended = ended
    self.readingClockDependency = readingClockDependency
  }

  package func restart(_ value: Int) {
    restarts += 1
    task?.cancel()
    let ended = self.ended
    if readingClockDependency {
      let clock = self.clock
      task = Task {
        try? await clock.sleep(for: .seconds(3_600))
        ended.arrive()
      }
    } else {
      task = Task {
        try? await Task.sleep(for: .seconds(3_600))
        ended.arrive()
      }
    }
  }

  package func stop() {
    task?.cancel()
    task = nil
  }
}

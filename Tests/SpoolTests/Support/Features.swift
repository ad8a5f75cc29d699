import ConcurrencyExtras
import Spool

/// A log that effects and reducers append to from any task.
final class EventLog: Sendable {
  private let events = LockIsolated<[String]>([])
  func append(_ event: String) { events.withValue { $0.append(event) } }
  var all: [String] { events.value }
}

/// Counts effects that are running, to check that none is left behind.
final class LiveCounter: Sendable {
  private let live = LockIsolated(0)
  private let started = LockIsolated(0)
  func enter() {
    live.withValue { $0 += 1 }
    started.withValue { $0 += 1 }
  }
  func leave() { live.withValue { $0 -= 1 } }
  var count: Int { live.value }
  var startedCount: Int { started.value }
}

/// Suspends until cancelled; the effect body of "long-running" effects in tests.
func suspendUntilCancelled() async {
  let never = AsyncStream<Never> { _ in }
  for await _ in never {}
}

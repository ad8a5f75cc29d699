import PostgresNIO
@testable import SpoolPostgres
import Testing

// Bounded polls: each gives up after 2,000 tries (about 10 s plus the queries' time) with a
// recorded issue or `false`, so that a test never hangs; none asserts how long anything took.

/// Polls (bounded: 2,000 tries) until a statement of `schema`'s writer waits on a lock.
func waitUntilACommitWaitsOnALock(
  _ admin: PostgresConnection, schema: String
) async throws -> Bool {
  for _ in 0..<2_000 {
    // `admin` is inside a transaction, whose view of pg_stat_activity is cached until cleared.
    try await admin.run("SELECT pg_stat_clear_snapshot()")
    let waiting = try await admin.rows(
      "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
        + "AND pid <> pg_backend_pid() AND query LIKE '%\(schema).spool_actions%'",
      as: Int64.self)
    if waiting.first == 1 { return true }
    try await Task.sleep(for: .milliseconds(5))
  }
  return false
}

/// Polls (bounded: 2,000 tries) until the node's queue holds `rows` rows.
func waitUntilQueued(_ node: PostgresJournalNode, rows: Int) async throws {
  for _ in 0..<2_000 {
    if node.queues[0].queuedRows >= rows { return }
    try await Task.sleep(for: .milliseconds(5))
  }
  Issue.record("the queue never held \(rows) rows")
}

/// Polls (bounded: 2,000 tries) until backend `pid` has ended.
func waitUntilGone(_ admin: PostgresConnection, pid: Int32) async throws {
  for _ in 0..<2_000 {
    let left = try await admin.rows(
      "SELECT count(*) FROM pg_stat_activity WHERE pid = \(pid)", as: Int64.self)
    if left.first == 0 { return }
    try await Task.sleep(for: .milliseconds(5))
  }
  Issue.record("backend \(pid) did not end")
}

/// Polls (bounded: 2,000 tries) until `queue` holds `tasks` waiting tasks.
func waitUntilWaiting(_ queue: PostgresCommitQueue, tasks: Int) async throws {
  for _ in 0..<2_000 {
    if queue.waitingTasks == tasks { return }
    try await Task.sleep(for: .milliseconds(5))
  }
  Issue.record("the queue never held \(tasks) waiting tasks")
}

/// Polls (bounded: 2,000 tries) until `condition` holds; records an issue naming `what` and
/// returns `false` if it never does.
@discardableResult
func pollUntil(_ what: String, _ condition: () -> Bool) async throws -> Bool {
  for _ in 0..<2_000 {
    if condition() { return true }
    try await Task.sleep(for: .milliseconds(5))
  }
  Issue.record("never: \(what)")
  return false
}

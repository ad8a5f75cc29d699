import PostgresNIO
import Spool
import Synchronization
@testable import SpoolPostgres
import Testing

/// The recorder's durable acknowledgement against a real server: cancellation of a wait.
@Suite(.enabled(if: PostgresTestDatabase.enabled, PostgresTestDatabase.disabledReason))
struct PostgresJournalRecorderTests {
  typealias Directory = PostgresJournalDirectory<String, Tally.State, Tally.Action>

  /// The commit of an action is held (the test locks the entity's owners row); of two tasks
  /// waiting for it, one is cancelled: it throws `cancelled` while the commit is still held
  /// (it was not told "durable"), the other still waits, and once the lock is released the
  /// action commits and the other is acknowledged. A task cancelled before it asks is
  /// refused the same way; asked about committed actions, a cancelled task is told the truth.
  @Test func cancelledWaitEndsAtOnceWithoutDisturbingTheCommitOrOtherWaiters() async throws {
    let schema = PostgresTestDatabase.uniqueSchema("cancel")
    defer { Task { await PostgresTestDatabase.drop(schema) } }
    var configuration = try PostgresTestDatabase.configuration(
      schema: schema, nodeAddress: "node-a")
    configuration.writerConnections = 1
    let node = try await PostgresJournalNode.connect(configuration)
    let journals = Directory(node: node)
    let store = try await journals.makeStore(for: "c1", initialState: Tally.State()) { Tally() }
    let recorder = try #require(journals.recorder(for: "c1"))
    await store.send(.add(1))
    try await recorder.waitUntilDurable()
    let queue = node.queues[0]

    try await PostgresTestDatabase.withAdmin { admin in
      try await admin.run("BEGIN")
      try await admin.run("SELECT 1 FROM \(schema).spool_owners WHERE entity = 'c1' FOR UPDATE")
      await store.send(.add(2))
      #expect(try await waitUntilACommitWaitsOnALock(admin, schema: schema))
      let commitsHeld = queue.commits

      let other = Task { try await recorder.waitUntilDurable() }
      let cancelled = Task { try await recorder.waitUntilDurable() }
      try await waitUntilWaiting(queue, tasks: 2)
      cancelled.cancel()
      // Bounded: a wait that ignored its cancellation would end only with the lock's release.
      guard try await pollUntil("the cancelled wait ended", { queue.waitingTasks == 1 }) else {
        try await admin.run("ROLLBACK")
        return
      }
      let error = try #require(await cancelled.result.failure as? PostgresJournalError)
      #expect(error.code == .cancelled)
      #expect(error.entity == "c1")
      #expect(error.sequenceNumber == 2)
      // The commit is still held, and the other waiter still waits for it.
      #expect(queue.commits == commitsHeld)
      #expect(queue.waitingTasks == 1)

      let earlyEnded = Flag()
      let early = Task {
        defer { earlyEnded.set() }
        withUnsafeCurrentTask { $0?.cancel() }
        try await recorder.waitUntilDurable()
      }
      guard try await pollUntil("the wait of a cancelled task ended", { earlyEnded.isSet }) else {
        try await admin.run("ROLLBACK")
        return
      }
      let earlyError = await early.result.failure as? PostgresJournalError
      #expect(earlyError?.code == .cancelled)
      #expect(queue.waitingTasks == 1)
      #expect(queue.commits == commitsHeld)

      try await admin.run("ROLLBACK")
      try await other.value
    }
    #expect(recorder.failure == nil)

    // Committed: a cancelled task asking about it is told so.
    let late = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      try await recorder.waitUntilDurable()
    }
    try await late.value

    // The recorder goes on, and the cancelled wait's action is in the journal.
    await store.send(.add(3))
    try await recorder.waitUntilDurable()
    await store.finish()
    await node.close()
    let other = try await PostgresTestDatabase.node(schema: schema, nodeAddress: "node-b")
    let recovered = try await Directory(node: other).take("c1", initialState: Tally.State()) {
      Tally()
    }
    #expect(recovered.state.values == [1, 2, 3])
    await other.close()
  }
}

/// A flag a task raises when it ends, for bounded polls.
final class Flag: Sendable {
  private let raised = Atomic<Bool>(false)
  func set() { raised.store(true, ordering: .releasing) }
  var isSet: Bool { raised.load(ordering: .acquiring) }
}

extension Result {
  /// The error, when it is a failure.
  var failure: Failure? {
    guard case .failure(let error) = self else { return nil }
    return error
  }
}

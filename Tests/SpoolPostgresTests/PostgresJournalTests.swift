import Foundation
import PostgresNIO
import Spool
@testable import SpoolJournal
@testable import SpoolPostgres
import Testing

/// The PostgreSQL journal against a real server: round trip and recovery, group commit,
/// fencing on take-over, and the errors of bad input and faults. Each test has a schema of
/// its own, dropped at its end.
@Suite(.enabled(if: PostgresTestDatabase.enabled, PostgresTestDatabase.disabledReason))
struct PostgresJournalTests {
  typealias Directory = PostgresJournalDirectory<String, Tally.State, Tally.Action>

  /// Actions committed, the entity evicted (a snapshot), taken again (recovered from the
  /// snapshot), more actions committed, the node closed without eviction (a crash: the
  /// lease ends with its connection); another node recovers the snapshot and the 5 rows after
  /// it, to the same state.
  @Test func roundTripAndRecoveryFromSnapshotAndFollowingActions() async throws {
    let schema = PostgresTestDatabase.uniqueSchema("roundtrip")
    defer { Task { await PostgresTestDatabase.drop(schema) } }
    let node = try await PostgresTestDatabase.node(schema: schema, nodeAddress: "node-a")
    let journals = Directory(node: node)

    let store = try await journals.makeStore(for: "cart-1", initialState: Tally.State()) {
      Tally()
    }
    for value in 1...10 { await store.send(.add(value)) }
    try await #require(journals.recorder(for: "cart-1")).waitUntilDurable()
    let first = await store.state
    await store.finish()
    #expect(try await journals.evict("cart-1", finalState: first) == 10)
    #expect(!node.serves("cart-1"))

    let again = try await journals.take("cart-1", initialState: Tally.State()) { Tally() }
    #expect(again.state == first)
    #expect(again.snapshotSequenceNumber == 10)
    #expect(again.actions == 0)
    #expect(again.epoch == 2)
    let second = Store(initialState: again.state, instrumentation: again.recorder) { Tally() }
    for value in 11...15 { await second.send(.add(value)) }
    try await again.recorder.waitUntilDurable()
    let expected = await second.state
    await second.finish()
    await node.close()

    let other = try await PostgresTestDatabase.node(schema: schema, nodeAddress: "node-b")
    let otherJournals = Directory(node: other)
    let recovered = try await otherJournals.take("cart-1", initialState: Tally.State()) {
      Tally()
    }
    #expect(recovered.state == expected)
    #expect(recovered.state.values == Array(1...15))
    #expect(recovered.snapshotSequenceNumber == 10)
    #expect(recovered.actions == 5)
    #expect(recovered.epoch == 3)
    #expect(recovered.recorder.lastSequenceNumber == 15)
    await other.close()
  }

  /// Group commit: the first commit of the node's one writer is held (the test locks the
  /// entity's owners row), so the rows of 8 producers, 200 actions each, each acknowledged by
  /// its own `waitUntilDurable`, pile up behind it; once released, exactly one more commit
  /// carries all of them. Every acknowledged action is in PostgreSQL, once, in order.
  @Test func groupCommitOfManyProducersInOneTransaction() async throws {
    let schema = PostgresTestDatabase.uniqueSchema("group")
    defer { Task { await PostgresTestDatabase.drop(schema) } }
    var configuration = try PostgresTestDatabase.configuration(
      schema: schema, nodeAddress: "node-a")
    configuration.writerConnections = 1
    let node = try await PostgresJournalNode.connect(configuration)
    let journals = Directory(node: node)
    let producers = 8
    let actionsPerProducer = 200
    var stores: [Store<Tally.State, Tally.Action>] = []
    for producer in 0..<producers {
      stores.append(
        try await journals.makeStore(for: "p\(producer)", initialState: Tally.State()) {
          Tally()
        })
    }
    #expect(node.queues[0].commits == 0)

    try await PostgresTestDatabase.withAdmin { admin in
      // Held until every producer's actions are queued: the first commit waits on it.
      try await admin.run("BEGIN")
      try await admin.run(
        "SELECT 1 FROM \(schema).spool_owners WHERE entity = 'p0' FOR UPDATE")
      await stores[0].send(.add(0))
      let blocked = try await waitUntilACommitWaitsOnALock(admin, schema: schema)
      #expect(blocked)

      try await withThrowingTaskGroup(of: Int.self) { group in
        for producer in 0..<producers {
          let store = stores[producer]
          let recorder = try #require(journals.recorder(for: "p\(producer)"))
          group.addTask {
            var acknowledged = 0
            await withTaskGroup(of: Bool.self) { acks in
              for value in 1...actionsPerProducer {
                await store.send(.add(value))
                acks.addTask {
                  (try? await recorder.waitUntilDurable()) != nil
                }
              }
              for await ok in acks where ok { acknowledged += 1 }
            }
            return acknowledged
          }
        }
        // Released only once every producer's rows are queued behind the held commit.
        try await waitUntilQueued(node, rows: 1 + producers * actionsPerProducer)
        try await admin.run("ROLLBACK")
        var acknowledged = 0
        for try await count in group { acknowledged += count }
        #expect(acknowledged == producers * actionsPerProducer)
      }

      // The held commit, then one commit for the 1,600 rows queued behind it.
      #expect(node.queues[0].commits == 2)
      for producer in 0..<producers {
        let rows = try await admin.rows(
          "SELECT count(*), min(seq), max(seq), count(DISTINCT seq) FROM \(schema).spool_actions "
            + "WHERE entity = 'p\(producer)'",
          as: (Int64, Int64, Int64, Int64).self)
        let expected = Int64(actionsPerProducer + (producer == 0 ? 1 : 0))
        #expect(rows.count == 1)
        #expect(rows.first?.0 == expected)
        #expect(rows.first?.1 == 1)
        #expect(rows.first?.2 == expected)
        #expect(rows.first?.3 == expected)
      }
    }
    // Every acknowledged action replays, in order.
    await node.close()
    let other = try await PostgresTestDatabase.node(schema: schema, nodeAddress: "node-b")
    let recovered = try await Directory(node: other).take("p3", initialState: Tally.State()) {
      Tally()
    }
    #expect(recovered.state.values == Array(1...actionsPerProducer))
    await other.close()
  }

  /// Node A owns an entity; its lease connection is terminated (`pg_terminate_backend`, as a
  /// partition would end it); node B takes the entity over with the next epoch and recovers
  /// A's committed actions. A's later write is refused with an error naming the entity and
  /// both epochs, and nothing of it lands. The rows' epochs show one writer per epoch.
  @Test func takeOverFencesTheNodeThatLostItsLease() async throws {
    let schema = PostgresTestDatabase.uniqueSchema("fence")
    defer { Task { await PostgresTestDatabase.drop(schema) } }
    let nodeA = try await PostgresTestDatabase.node(schema: schema, nodeAddress: "10.0.0.1:8080")
    let nodeB = try await PostgresTestDatabase.node(schema: schema, nodeAddress: "10.0.0.2:8080")
    let journalsA = Directory(node: nodeA)
    let journalsB = Directory(node: nodeB)

    let storeA = try await journalsA.makeStore(for: "order-7", initialState: Tally.State()) {
      Tally()
    }
    for value in 1...3 { await storeA.send(.add(value)) }
    let recorderA = try #require(journalsA.recorder(for: "order-7"))
    try await recorderA.waitUntilDurable()
    #expect(recorderA.epoch == 1)

    // While A holds the lease, B is told who owns the entity.
    let refused = await #expect(throws: PostgresJournalError.self) {
      _ = try await journalsB.take("order-7", initialState: Tally.State()) { Tally() }
    }
    #expect(refused?.code == .ownedElsewhere)
    #expect(refused?.owner == "10.0.0.1:8080")
    #expect(refused?.entity == "order-7")

    let pid = try await nodeA.leaseBackendProcessID()
    try await PostgresTestDatabase.withAdmin { admin in
      try await admin.run("SELECT pg_terminate_backend(\(pid))")
      try await waitUntilGone(admin, pid: pid)
    }

    let recoveryB = try await journalsB.take("order-7", initialState: Tally.State()) { Tally() }
    #expect(recoveryB.epoch == 2)
    #expect(recoveryB.state.values == [1, 2, 3])

    // A still runs, and its writer connection still works: PostgreSQL refuses its write.
    await storeA.send(.add(4))
    let fenced = await #expect(throws: PostgresJournalError.self) {
      try await recorderA.waitUntilDurable()
    }
    #expect(fenced?.code == .fenced)
    #expect(fenced?.entity == "order-7")
    #expect(fenced?.writerEpoch == 1)
    #expect(fenced?.currentEpoch == 2)
    #expect(fenced?.owner == "10.0.0.2:8080")
    let description = fenced.map { "\($0)" } ?? ""
    #expect(description.contains("entity order-7"))
    #expect(description.contains("epoch 1") && description.contains("epoch 2"))
    // Later writes are dropped, not queued after the refused one.
    await storeA.send(.add(5))
    await #expect(throws: PostgresJournalError.self) { try await recorderA.waitUntilDurable() }
    #expect(recorderA.counts.dropped == 1)

    let storeB = Store(initialState: recoveryB.state, instrumentation: recoveryB.recorder) {
      Tally()
    }
    for value in [40, 50] { await storeB.send(.add(value)) }
    try await recoveryB.recorder.waitUntilDurable()

    try await PostgresTestDatabase.withAdmin { admin in
      let rows = try await admin.rows(
        "SELECT seq, epoch FROM \(schema).spool_actions WHERE entity = 'order-7' ORDER BY seq",
        as: (Int64, Int64).self)
      #expect(rows.map(\.0) == [1, 2, 3, 4, 5])
      #expect(rows.map(\.1) == [1, 1, 1, 2, 2])
      // One owner per epoch, and the epochs never go back along the journal.
      let owners = try await admin.rows(
        "SELECT epoch, owner FROM \(schema).spool_epochs WHERE entity = 'order-7' ORDER BY epoch",
        as: (Int64, String).self)
      #expect(owners.map(\.0) == [1, 2])
      #expect(owners.map(\.1) == ["10.0.0.1:8080", "10.0.0.2:8080"])
      #expect(zip(rows, rows.dropFirst()).allSatisfy { $0.1 <= $1.1 })
    }
    // B's recovery has A's committed actions and B's, not A's refused one.
    await storeB.finish()
    #expect(try await journalsB.evict("order-7", finalState: await storeB.state) == 5)
    let final = try await journalsB.take("order-7", initialState: Tally.State()) { Tally() }
    #expect(final.state.values == [1, 2, 3, 40, 50])
    await nodeA.close()
    await nodeB.close()
  }

  /// PostgreSQL unreachable at start: a clear error naming the host and port.
  @Test func unreachableServerNamesHostAndPort() async throws {
    var configuration = try PostgresTestDatabase.configuration(
      schema: "unreachable", nodeAddress: "node-a")
    configuration.host = "127.0.0.1"
    configuration.port = 1
    configuration.connectTimeout = .seconds(5)
    let error = await #expect(throws: PostgresJournalError.self) {
      _ = try await PostgresJournalNode.connect(configuration)
    }
    #expect(error?.code == .unreachable)
    #expect(error.map { "\($0)" }?.contains("127.0.0.1:1") == true)
  }

  /// A schema name that is not a plain identifier is refused before any connection.
  @Test func schemaNameMustBeAnIdentifier() async throws {
    var configuration = try PostgresTestDatabase.configuration(
      schema: "x; DROP TABLE y", nodeAddress: "node-a")
    configuration.port = 1
    let error = await #expect(throws: PostgresJournalError.self) {
      _ = try await PostgresJournalNode.connect(configuration)
    }
    #expect(error?.code == .invalidConfiguration)
    #expect(throws: PostgresJournalError.self) {
      _ = try PostgresJournalConfiguration(url: "mysql://x@y/z", nodeAddress: "a")
    }
  }

  /// A damaged snapshot ends recovery with an error naming the entity and the snapshot's
  /// sequence number, and the entity is not served (its lease is released: the next take
  /// fails the same way).
  @Test func damagedSnapshotEndsRecoveryNamingEntityAndSequence() async throws {
    let schema = PostgresTestDatabase.uniqueSchema("snapshot")
    defer { Task { await PostgresTestDatabase.drop(schema) } }
    let node = try await PostgresTestDatabase.node(schema: schema, nodeAddress: "node-a")
    let journals = Directory(node: node)
    let store = try await journals.makeStore(for: "s1", initialState: Tally.State()) { Tally() }
    for value in 1...4 { await store.send(.add(value)) }
    await store.finish()
    try await journals.evict("s1", finalState: await store.state)

    try await PostgresTestDatabase.withAdmin { admin in
      try await admin.run(
        "UPDATE \(schema).spool_snapshots SET state = '\\x0102ff'::bytea WHERE entity = 's1'")
    }
    for _ in 0..<2 {
      let error = await #expect(throws: PostgresJournalError.self) {
        _ = try await journals.take("s1", initialState: Tally.State()) { Tally() }
      }
      #expect(error?.code == .undecodableState)
      #expect(error?.entity == "s1")
      #expect(error?.sequenceNumber == 4)
      #expect(error.map { "\($0)" }?.hasPrefix("entity s1, sequence 4: ") == true)
      #expect(!node.serves("s1"))
    }

    // A snapshot that decodes but is not the state its checksum was written for.
    try await PostgresTestDatabase.withAdmin { admin in
      let other = try JournalRecordCoder<Tally.Action>.encodeState(
        Tally.State(values: [9], total: 9))
      let hex = other.map { String(format: "%02x", $0) }.joined()
      try await admin.run(
        "UPDATE \(schema).spool_snapshots SET state = '\\x\(hex)'::bytea WHERE entity = 's1'")
    }
    let mismatch = await #expect(throws: PostgresJournalError.self) {
      _ = try await journals.take("s1", initialState: Tally.State()) { Tally() }
    }
    #expect(mismatch?.code == .stateMismatch)
    #expect(mismatch?.sequenceNumber == 4)
    await node.close()
  }

  /// A row of another action type ends recovery with an error naming the entity and the
  /// row's sequence number; so does a hole in the sequence.
  @Test func rowOfAnotherActionTypeEndsRecoveryNamingEntityAndSequence() async throws {
    let schema = PostgresTestDatabase.uniqueSchema("foreign")
    defer { Task { await PostgresTestDatabase.drop(schema) } }
    let node = try await PostgresTestDatabase.node(schema: schema, nodeAddress: "node-a")
    let journals = Directory(node: node)
    let recovery = try await journals.take("r1", initialState: Tally.State()) { Tally() }
    let store = Store(initialState: recovery.state, instrumentation: recovery.recorder) {
      Tally()
    }
    for value in 1...3 { await store.send(.add(value)) }
    try await recovery.recorder.waitUntilDurable()
    await store.finish()
    await node.close()

    let foreign = try JournalRecordCoder<Foreign>().encode(.rename("x", flag: true))
    let hex = foreign.map { String(format: "%02x", $0) }.joined()
    try await PostgresTestDatabase.withAdmin { admin in
      try await admin.run(
        "INSERT INTO \(schema).spool_actions (entity, seq, epoch, action) "
          + "VALUES ('r1', 4, 1, '\\x\(hex)'::bytea)")
    }
    let other = try await PostgresTestDatabase.node(schema: schema, nodeAddress: "node-b")
    let otherJournals = Directory(node: other)
    let error = await #expect(throws: PostgresJournalError.self) {
      _ = try await otherJournals.take("r1", initialState: Tally.State()) { Tally() }
    }
    #expect(error?.code == .undecodableAction)
    #expect(error?.entity == "r1")
    #expect(error?.sequenceNumber == 4)
    #expect(!other.serves("r1"))

    try await PostgresTestDatabase.withAdmin { admin in
      try await admin.run(
        "UPDATE \(schema).spool_actions SET seq = 6 WHERE entity = 'r1' AND seq = 4")
    }
    let hole = await #expect(throws: PostgresJournalError.self) {
      _ = try await otherJournals.take("r1", initialState: Tally.State()) { Tally() }
    }
    #expect(hole?.code == .missingAction)
    #expect(hole?.sequenceNumber == 4)
    await other.close()
  }
}

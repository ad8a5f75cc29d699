import PostgresNIO
import Spool
import Synchronization
@testable import SpoolPostgres
import Testing

/// PostgreSQL unreachable in the middle of a run, for real: the node talks to the server
/// through a loopback relay (``LoopbackProxy``) that the test cuts and restores.
@Suite(.enabled(if: PostgresTestDatabase.enabled, PostgresTestDatabase.disabledReason))
struct PostgresJournalOutageTests {
  typealias Directory = PostgresJournalDirectory<String, Tally.State, Tally.Action>
  typealias Registry = StoreRegistry<String, Tally.State, Tally.Action>

  /// Three entities under load, each producer acknowledging every action (durably) before its
  /// next, as a request handler would; on a journal failure the handler evicts the entity's
  /// store (as the example server does). The relay is cut mid-load: every producer's next
  /// acknowledgement fails, no acknowledgement succeeds while cut, and the node serves none
  /// of the entities (taking one fails). Restored, each entity is taken again and recovered
  /// with exactly what was committed: every acknowledged action, in order, plus at most the
  /// one whose commit was cut (it may have committed before its answer was lost), and it
  /// serves new actions durably.
  @Test func databaseCutMidRunFailsAcknowledgementsAndEntitiesResumeAfter() async throws {
    let schema = PostgresTestDatabase.uniqueSchema("outage")
    defer { Task { await PostgresTestDatabase.drop(schema) } }
    var configuration = try PostgresTestDatabase.configuration(
      schema: schema, nodeAddress: "node-a")
    let proxy = try LoopbackProxy(upstreamPort: configuration.port)
    defer { proxy.stop() }
    configuration.port = proxy.port
    configuration.connectTimeout = .seconds(5)
    let node = try await PostgresJournalNode.connect(configuration)
    let journals = Directory(node: node)
    let registry = Registry(
      configuration: StoreRegistryConfiguration(idleTimeout: .seconds(600)),
      onEvict: { id, state in _ = try? await journals.evict(id, finalState: state) }
    ) { id in
      try await journals.makeStore(for: id, initialState: Tally.State()) { Tally() }
    }
    let handler = Handler(registry: registry, journals: journals)
    let entities = ["e0", "e1", "e2"]

    // Load until each producer has 20 acknowledged actions, then the cut, mid-load.
    let acknowledged = try await withThrowingTaskGroup(
      of: (String, [Int], PostgresJournalError).self
    ) { group in
      for entity in entities {
        group.addTask {
          var acknowledged: [Int] = []
          // Bounded: the cut comes after 20 acknowledgements of every producer.
          for value in 1...100_000 {
            if let error = await handler.add(value, to: entity) {
              return (entity, acknowledged, error)
            }
            acknowledged.append(value)
            handler.progress(entity, acknowledged.count)
          }
          Issue.record("\(entity): the cut never stopped the producer")
          return (entity, acknowledged, PostgresJournalError(.database, message: "no cut"))
        }
      }
      try await pollUntil("every producer has 20 acknowledged actions") {
        entities.allSatisfy { handler.acknowledgedCount($0) >= 20 }
      }
      proxy.cut()
      var acknowledged: [String: [Int]] = [:]
      for try await (entity, values, error) in group {
        acknowledged[entity] = values
        #expect(
          error.code == .database || error.code == .unreachable,
          "\(entity): the first failure is the database's: \(error)")
      }
      return acknowledged
    }

    // Still cut: no action is acknowledged, and no entity is served.
    for entity in entities {
      let error = await handler.add(-1, to: entity)
      #expect(error != nil, "\(entity): acknowledged while PostgreSQL is unreachable")
      #expect(journals.recorder(for: entity) == nil)
      #expect(!node.serves(entity))
    }

    proxy.restore()
    for entity in entities {
      let acked = try #require(acknowledged[entity])
      // Retried until the node reaches PostgreSQL again and its old sessions (and their
      // leases) are gone; bounded.
      var served: Int?
      for attempt in 0..<400 {
        let value = 1_000_000 + attempt
        if await handler.add(value, to: entity) == nil {
          served = value
          break
        }
        try await Task.sleep(for: .milliseconds(25))
      }
      let value = try #require(served, "\(entity) is not served again after the restore")
      let values = try await registry.withStore(entity) { await $0.state.values }
      let recovered = Array(values.dropLast())
      #expect(values.last == value)
      // Exactly what was committed: the acknowledged actions in order, and at most the one
      // whose answer the cut lost.
      #expect(
        recovered == acked || recovered == acked + [acked.count + 1],
        "\(entity): recovered \(recovered.count) actions, \(acked.count) were acknowledged")
      #expect(try #require(journals.recorder(for: entity)).epoch == 2)
    }

    // The journals as PostgreSQL holds them: each entity's rows in sequence, written with
    // epoch 1 until the cut and epoch 2 after the take-over.
    try await PostgresTestDatabase.withAdmin { admin in
      for entity in entities {
        let rows = try await admin.rows(
          "SELECT seq, epoch FROM \(schema).spool_actions WHERE entity = '\(entity)' "
            + "ORDER BY seq",
          as: (Int64, Int64).self)
        #expect(rows.map(\.0) == Array(1...Int64(rows.count)))
        #expect(rows.last?.1 == 2)
        #expect(rows.dropLast().allSatisfy { $0.1 == 1 })
      }
    }
    await registry.shutdown(deadline: .now + .seconds(30))
    await node.close()
  }
}

/// What the example server's request handler does with the journal: reduce the action in
/// the entity's store, answer once it is committed, and on a journal failure (other than a
/// cancelled wait or an entity owned elsewhere) evict the store, so that the next request
/// takes the entity again and recovers what was committed.
private final class Handler: Sendable {
  let registry: StoreRegistry<String, Tally.State, Tally.Action>
  let journals: PostgresJournalDirectory<String, Tally.State, Tally.Action>
  private let counts = Mutex<[String: Int]>([:])

  init(
    registry: StoreRegistry<String, Tally.State, Tally.Action>,
    journals: PostgresJournalDirectory<String, Tally.State, Tally.Action>
  ) {
    self.registry = registry
    self.journals = journals
  }

  /// `nil` when `value` was added and committed; the error otherwise.
  func add(_ value: Int, to entity: String) async -> PostgresJournalError? {
    do {
      try await registry.withStore(entity) { store in
        await store.send(.add(value))
        guard let recorder = journals.recorder(for: entity) else {
          throw PostgresJournalError(.notRecording, entity: entity, message: "no recorder")
        }
        try await recorder.waitUntilDurable()
      }
      return nil
    } catch let error as PostgresJournalError {
      if error.code != .cancelled && error.code != .ownedElsewhere {
        await registry.evict(entity)
      }
      return error
    } catch {
      Issue.record("\(entity): not a journal error: \(error)")
      return PostgresJournalError(.database, message: "\(error)")
    }
  }

  func progress(_ entity: String, _ count: Int) { counts.withLock { $0[entity] = count } }
  func acknowledgedCount(_ entity: String) -> Int { counts.withLock { $0[entity] ?? 0 } }
}

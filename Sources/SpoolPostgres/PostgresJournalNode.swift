import NIOCore
import PostgresNIO
import Synchronization

/// One server process's link to the PostgreSQL that holds its entities' journals and
/// ownership: the leases it holds, the epochs it writes with, and the connections that commit
/// its journal rows.
///
/// A node owns an entity while it holds the entity's lease, a session-level advisory lock on
/// the node's lease connection, which PostgreSQL releases when that connection ends (the
/// process died, or the network cut it off). Taking an entity also bumps its epoch in the
/// `spool_owners` table, and every journal row and snapshot the node writes carries that
/// epoch: PostgreSQL refuses, in the same statement, a write whose epoch is no longer the
/// entity's, so a node that lost its lease cannot append once another node took the entity.
///
/// Connect one node per process, and give it to a ``PostgresJournalDirectory`` per store type.
///
/// ```swift
/// let node = try await PostgresJournalNode.connect(
///   try PostgresJournalConfiguration(
///     url: "postgres://spool@127.0.0.1:5432/spool", nodeAddress: "127.0.0.1:8080"))
/// let carts = PostgresJournalDirectory<String, Cart.State, Cart.Action>(node: node)
/// // …
/// await node.close()
/// ```
public final class PostgresJournalNode: Sendable {
  /// The configuration the node connected with.
  public let configuration: PostgresJournalConfiguration
  let schema: PostgresJournalSchema
  /// Holds the leases; nothing else runs on it, so that no slow statement delays a lease.
  let lease: PostgresConnectionSlot
  /// Take-overs, recoveries and snapshots.
  let control: PostgresConnectionSlot
  let queues: [PostgresCommitQueue]
  /// The entities this node holds the lease of, with their epochs (0 while being taken).
  private let owned = Mutex<[String: Int64]>([:])

  private init(
    configuration: PostgresJournalConfiguration, schema: PostgresJournalSchema,
    lease: PostgresConnectionSlot, control: PostgresConnectionSlot,
    queues: [PostgresCommitQueue]
  ) {
    self.configuration = configuration
    self.schema = schema
    self.lease = lease
    self.control = control
    self.queues = queues
  }

  /// Connects to PostgreSQL, creates the schema's tables when missing, and checks their
  /// version.
  ///
  /// - Throws: ``PostgresJournalError`` with ``PostgresJournalError/Code/unreachable`` (naming
  ///   the host and port) when PostgreSQL cannot be reached,
  ///   ``PostgresJournalError/Code/invalidConfiguration`` for a bad schema name, or
  ///   ``PostgresJournalError/Code/schemaVersion`` for tables of another version.
  ///
  /// ```swift
  /// let node = try await PostgresJournalNode.connect(configuration)
  /// ```
  public static func connect(
    _ configuration: PostgresJournalConfiguration
  ) async throws(PostgresJournalError) -> PostgresJournalNode {
    try configuration.validate()
    let schema = PostgresJournalSchema(name: configuration.schema)
    let lease = PostgresConnectionSlot(configuration, role: "lease")
    let control = PostgresConnectionSlot(configuration, role: "control")
    let connection = try await control.connection()
    _ = try await lease.connection()
    do {
      try await connection.withTransaction(logger: configuration.logger) { connection in
        for statement in schema.create {
          try await connection.query(PostgresQuery(unsafeSQL: statement), logger: configuration.logger)
        }
      }
      var versions: [Int32] = []
      for try await version in try await connection.query(
        PostgresQuery(unsafeSQL: schema.versions), logger: configuration.logger
      ).decode(Int32.self) {
        versions.append(version)
      }
      guard versions == [Int32(PostgresJournalSchema.version)] else {
        await lease.close()
        await control.close()
        throw PostgresJournalError(
          .schemaVersion,
          message:
            "schema \(schema.name) holds version(s) \(versions) of SpoolPostgres' tables; this "
            + "library reads version \(PostgresJournalSchema.version)")
      }
    } catch let error as PostgresJournalError {
      throw error
    } catch {
      await lease.close()
      await control.close()
      throw .database(error, doing: "creating schema \(schema.name)")
    }
    let queues = (0..<configuration.writerConnections).map { index in
      PostgresCommitQueue(
        connection: PostgresConnectionSlot(configuration, role: "writer \(index)"),
        schema: schema, maxRows: configuration.maxRowsPerCommit)
    }
    return PostgresJournalNode(
      configuration: configuration, schema: schema, lease: lease, control: control,
      queues: queues)
  }

  /// Closes the node's connections; its leases are released by PostgreSQL with the lease
  /// connection. Rows not yet committed fail (their recorders' ``PostgresJournalRecorder/waitUntilDurable()``
  /// throw).
  ///
  /// ```swift
  /// await node.close()
  /// ```
  public func close() async {
    let closed = PostgresJournalError(.notRecording, message: "the node was closed")
    for queue in queues { await queue.shutdown(closed) }
    await lease.close()
    await control.close()
  }

  /// The backend process ID of the lease connection: ending it (`pg_terminate_backend`)
  /// releases every lease of the node, as a partition or a crash would.
  ///
  /// ```swift
  /// let pid = try await node.leaseBackendProcessID()
  /// ```
  public func leaseBackendProcessID() async throws -> Int32 {
    try await lease.backendProcessID()
  }

  /// Commits made by the node's writers so far, for the measurements.
  package var commits: Int { queues.reduce(0) { $0 + $1.commits } }

  /// The queue that commits `entity`'s rows: always the same one for an entity, so that its
  /// rows commit in order.
  func queue(for entity: String) -> PostgresCommitQueue {
    // FNV-1a: stable across processes (Hasher is seeded per process).
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    for byte in entity.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
    return queues[Int(hash % UInt64(queues.count))]
  }

  /// Takes `entity`: its lease, then a new epoch; returns the epoch.
  ///
  /// - Throws: ``PostgresJournalError/Code/inUse`` when this node holds it already,
  ///   ``PostgresJournalError/Code/ownedElsewhere`` (with the owner's address) when another
  ///   live node does, or a database error.
  func take(_ entity: String) async throws(PostgresJournalError) -> Int64 {
    let inserted = owned.withLock { owned in
      guard owned[entity] == nil else { return false }
      owned[entity] = 0
      return true
    }
    guard inserted else {
      throw PostgresJournalError(
        .inUse, entity: entity, message: "this node serves the entity already")
    }
    var leased = false
    do {
      var binds = PostgresBindings()
      binds.append(entity)
      var granted = false
      for try await value in try await lease.query(
        PostgresQuery(unsafeSQL: schema.tryLease, binds: binds)
      ).decode(Bool.self) {
        granted = value
      }
      guard granted else {
        let (epoch, owner) = try await currentOwner(of: entity)
        throw PostgresJournalError(
          .ownedElsewhere, entity: entity, currentEpoch: epoch, owner: owner,
          message:
            "another live node holds the lease"
            + (owner.map { " (owner \($0)" } ?? " (owner unknown") + ", epoch \(epoch ?? 0))")
      }
      leased = true
      var takeBinds = PostgresBindings()
      takeBinds.append(entity)
      takeBinds.append(configuration.nodeAddress)
      var epoch: Int64?
      for try await value in try await control.query(
        PostgresQuery(unsafeSQL: schema.takeOwnership, binds: takeBinds)
      ).decode(Int64.self) {
        epoch = value
      }
      guard let epoch else {
        throw PostgresJournalError(
          .database, entity: entity, message: "taking ownership returned no epoch")
      }
      owned.withLock { $0[entity] = epoch }
      return epoch
    } catch {
      if leased { await releaseLease(entity) }
      _ = owned.withLock { $0.removeValue(forKey: entity) }
      throw .database(error, doing: "taking the entity", entity: entity)
    }
  }

  /// The recorded epoch and owner of `entity`.
  func currentOwner(of entity: String) async throws -> (Int64?, String?) {
    var binds = PostgresBindings()
    binds.append(entity)
    for try await (epoch, owner) in try await control.query(
      PostgresQuery(unsafeSQL: schema.owner, binds: binds)
    ).decode((Int64, String?).self) {
      return (epoch, owner)
    }
    return (nil, nil)
  }

  /// Gives `entity` up: clears its owner's address (if the epoch is still `epoch`) and
  /// releases its lease.
  func release(_ entity: String, epoch: Int64) async {
    var binds = PostgresBindings()
    binds.append(entity)
    binds.append(epoch)
    _ = try? await control.query(PostgresQuery(unsafeSQL: schema.clearOwner, binds: binds))
    await releaseLease(entity)
    _ = owned.withLock { $0.removeValue(forKey: entity) }
  }

  private func releaseLease(_ entity: String) async {
    var binds = PostgresBindings()
    binds.append(entity)
    _ = try? await lease.query(PostgresQuery(unsafeSQL: schema.releaseLease, binds: binds))
  }

  /// Whether this node serves `entity` (took it and did not release it).
  ///
  /// ```swift
  /// if node.serves("cart-42") { … }
  /// ```
  public func serves(_ entity: String) -> Bool {
    owned.withLock { ($0[entity] ?? 0) > 0 }
  }

  /// The newest snapshot of `entity`: its sequence number, state bytes and checksum.
  func newestSnapshot(
    of entity: String
  ) async throws(PostgresJournalError) -> (Int64, [UInt8], Int64)? {
    var binds = PostgresBindings()
    binds.append(entity)
    do {
      for try await (sequence, state, checksum) in try await control.query(
        PostgresQuery(unsafeSQL: schema.newestSnapshot, binds: binds)
      ).decode((Int64, ByteBuffer, Int64).self) {
        return (sequence, Array(buffer: state), checksum)
      }
      return nil
    } catch {
      throw .database(error, doing: "reading the newest snapshot", entity: entity)
    }
  }

  /// Calls `each` with the rows of `entity` after `sequence`, in order.
  func actions(
    of entity: String, after sequence: Int64,
    _ each: (Int64, ByteBuffer) throws(PostgresJournalError) -> Void
  ) async throws(PostgresJournalError) {
    var binds = PostgresBindings()
    binds.append(entity)
    binds.append(sequence)
    let rows: PostgresRowSequence
    do {
      rows = try await control.query(PostgresQuery(unsafeSQL: schema.actionsAfter, binds: binds))
    } catch {
      throw .database(error, doing: "reading the journal", entity: entity)
    }
    var iterator = rows.decode((Int64, ByteBuffer).self).makeAsyncIterator()
    while true {
      let next: (Int64, ByteBuffer)?
      do {
        next = try await iterator.next()
      } catch {
        throw .database(error, doing: "reading the journal", entity: entity)
      }
      guard let (sequence, bytes) = next else { return }
      try each(sequence, bytes)
    }
  }

  /// Writes a snapshot of `entity` at `sequence` with `epoch`, and removes the rows and
  /// snapshots it replaces, in one statement that PostgreSQL refuses if the epoch moved on.
  func writeSnapshot(
    of entity: String, at sequence: Int64, epoch: Int64, state: [UInt8], checksum: Int64
  ) async throws(PostgresJournalError) {
    var binds = PostgresBindings()
    binds.append(entity)
    binds.append(sequence)
    binds.append(epoch)
    binds.append(ByteBuffer(bytes: state))
    binds.append(checksum)
    var outcome: (Int64?, String?, Bool)?
    do {
      for try await row in try await control.query(
        PostgresQuery(unsafeSQL: schema.snapshotFenced, binds: binds)
      ).decode((Int64?, String?, Bool).self) {
        outcome = row
      }
    } catch {
      throw .database(error, doing: "writing a snapshot", entity: entity)
    }
    guard let (current, owner, written) = outcome, written else {
      let current = outcome?.0
      throw PostgresJournalError(
        .fenced, entity: entity, sequenceNumber: sequence, writerEpoch: epoch,
        currentEpoch: current, owner: outcome?.1,
        message:
          "snapshot refused: this node writes with epoch \(epoch), the entity "
          + (current.map { "is at epoch \($0)" } ?? "has no owner row")
          + (outcome?.1.map { " (owner \($0))" } ?? "") + "; nothing was written")
    }
    _ = (current, owner)
  }
}

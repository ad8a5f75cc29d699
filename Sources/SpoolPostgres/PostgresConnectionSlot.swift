import Logging
import PostgresNIO
import Synchronization

/// One connection of a node, opened on first use and again after it broke: a query on a closed
/// connection fails, and the next one reconnects.
actor PostgresConnectionSlot {
  private let configuration: PostgresJournalConfiguration
  private let role: String
  private var current: PostgresConnection?
  private static let ids = Atomic<Int>(0)

  init(_ configuration: PostgresJournalConfiguration, role: String) {
    self.configuration = configuration
    self.role = role
  }

  /// The open connection, connecting when there is none (or it closed).
  ///
  /// - Throws: ``PostgresJournalError/Code/unreachable`` naming the host and port.
  func connection() async throws(PostgresJournalError) -> PostgresConnection {
    if let current, !current.isClosed { return current }
    current = nil
    let connection = try await Self.connect(configuration, role: role)
    current = connection
    return connection
  }

  /// Opens a connection, or throws ``PostgresJournalError/Code/unreachable`` naming the host
  /// and port.
  static func connect(
    _ configuration: PostgresJournalConfiguration, role: String
  ) async throws(PostgresJournalError) -> PostgresConnection {
    do {
      return try await PostgresConnection.connect(
        configuration: configuration.connection,
        id: ids.add(1, ordering: .relaxed).newValue, logger: configuration.logger)
    } catch {
      throw PostgresJournalError(
        .unreachable,
        message:
          "cannot connect the \(role) connection to PostgreSQL at "
          + "\(configuration.host):\(configuration.port) (database "
          + "\(configuration.database ?? configuration.username), user "
          + "\(configuration.username)): \(PostgresJournalError.describe(error))")
    }
  }

  /// Runs `query` on the connection, reconnecting first if it broke.
  nonisolated func query(_ query: PostgresQuery) async throws -> PostgresRowSequence {
    let connection = try await connection()
    return try await connection.query(query, logger: configuration.logger)
  }

  /// Closes the connection, if open.
  func close() async {
    if let current { try? await current.close() }
    current = nil
  }

  /// The backend process ID of the open connection, for `pg_terminate_backend`.
  nonisolated func backendProcessID() async throws -> Int32 {
    let rows = try await query("SELECT pg_backend_pid()")
    for try await pid in rows.decode(Int32.self) { return pid }
    throw PostgresJournalError(.database, message: "pg_backend_pid() returned no row")
  }
}

import Foundation
import Logging
import PostgresNIO

/// Where a node's journals live in PostgreSQL, and who the node is.
///
/// ```swift
/// var configuration = try PostgresJournalConfiguration(
///   url: "postgres://spool@db.internal:5432/carts", nodeAddress: "10.0.0.7:8080")
/// configuration.schema = "carts"
/// let node = try await PostgresJournalNode.connect(configuration)
/// ```
public struct PostgresJournalConfiguration: Sendable {
  /// The host PostgreSQL listens on.
  public var host: String
  /// The port PostgreSQL listens on.
  public var port: Int
  /// The role to connect as.
  public var username: String
  /// The role's password, if the server asks for one.
  public var password: String?
  /// The database that holds the schema.
  public var database: String?
  /// TLS for every connection; disabled by default (a loopback or private network).
  public var tls: PostgresConnection.Configuration.TLS = .disable
  /// The schema of the journal's tables, created when missing: a plain identifier (letters,
  /// digits and `_`, not starting with a digit, at most 63 bytes). `spool` by default.
  public var schema: String = "spool"
  /// This node's address, recorded as the owner of the entities it takes, so that another
  /// node can send a client here (`host:port` of its HTTP server, say).
  public var nodeAddress: String
  /// Connections that write journal rows; each entity's rows go through one of them (by a
  /// hash of its key), so that its order is kept, and each commits the rows of many entities
  /// at once. 2 by default.
  public var writerConnections: Int = 2
  /// The most rows one commit carries; the rest wait for the next. 4,096 by default.
  public var maxRowsPerCommit: Int = 4_096
  /// How long a connection attempt may take before it fails. 10 seconds by default.
  public var connectTimeout: Duration = .seconds(10)
  /// Where postgres-nio logs its connections' events; nowhere by default.
  public var logger = Logger(label: "spool.postgres", factory: { _ in SwiftLogNoOpLogHandler() })

  /// A configuration for the server at `host`:`port`.
  ///
  /// ```swift
  /// let configuration = PostgresJournalConfiguration(
  ///   host: "127.0.0.1", port: 5432, username: "spool", database: "spool",
  ///   nodeAddress: "127.0.0.1:8080")
  /// ```
  public init(
    host: String, port: Int = 5432, username: String, password: String? = nil,
    database: String? = nil, nodeAddress: String
  ) {
    self.host = host
    self.port = port
    self.username = username
    self.password = password
    self.database = database
    self.nodeAddress = nodeAddress
  }

  /// A configuration from a URL of the form `postgres://user[:password]@host[:port][/database]`.
  ///
  /// - Throws: ``PostgresJournalError/Code/invalidConfiguration`` naming the URL when it is not
  ///   of that form.
  ///
  /// ```swift
  /// let configuration = try PostgresJournalConfiguration(
  ///   url: "postgres://postgres@127.0.0.1:54329/spool_test", nodeAddress: "node-a")
  /// ```
  public init(url: String, nodeAddress: String) throws(PostgresJournalError) {
    guard let components = URLComponents(string: url),
      components.scheme == "postgres" || components.scheme == "postgresql",
      let host = components.host, !host.isEmpty,
      let user = components.user, !user.isEmpty
    else {
      throw PostgresJournalError(
        .invalidConfiguration,
        message: "'\(url)' is not a URL of the form postgres://user[:password]@host[:port]/db")
    }
    let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : ""
    self.init(
      host: host, port: components.port ?? 5432, username: user,
      password: components.password, database: path.isEmpty ? nil : path,
      nodeAddress: nodeAddress)
  }

  /// Throws ``PostgresJournalError/Code/invalidConfiguration`` for a value that cannot work.
  func validate() throws(PostgresJournalError) {
    let identifier = schema.utf8.allSatisfy { byte in
      (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x5F
    }
    guard identifier, let first = schema.utf8.first, !(first >= 0x30 && first <= 0x39),
      schema.utf8.count <= 63
    else {
      throw PostgresJournalError(
        .invalidConfiguration,
        message:
          "schema '\(schema)' is not a plain identifier (a-z, 0-9 and _, not starting with a "
          + "digit, at most 63 bytes)")
    }
    guard writerConnections >= 1, maxRowsPerCommit >= 1 else {
      throw PostgresJournalError(
        .invalidConfiguration,
        message:
          "writerConnections (\(writerConnections)) and maxRowsPerCommit (\(maxRowsPerCommit)) "
          + "must be at least 1")
    }
  }

  /// postgres-nio's configuration of one connection.
  var connection: PostgresConnection.Configuration {
    var configuration = PostgresConnection.Configuration(
      host: host, port: port, username: username, password: password, database: database,
      tls: tls)
    let (seconds, attoseconds) = connectTimeout.components
    configuration.options.connectTimeout = .nanoseconds(
      seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    return configuration
  }
}

import Foundation
import Logging
import PostgresNIO
@testable import SpoolPostgres
import Testing

/// The PostgreSQL server the suites run against: `SPOOL_POSTGRES_URL`
/// (`postgres://postgres@127.0.0.1:54329/spool_test` with `.ci/postgres start`). Without it the
/// suites are disabled, with that reason shown, except under CI (`CI` set), where they run and
/// fail at once: CI must never skip them silently.
enum PostgresTestDatabase {
  static let url = ProcessInfo.processInfo.environment["SPOOL_POSTGRES_URL"]
  static let inCI = ProcessInfo.processInfo.environment["CI"] != nil

  /// Whether the suites run: a server is given, or CI must fail without one.
  static let enabled = url != nil || inCI
  static let disabledReason = Comment(
    rawValue:
      "SPOOL_POSTGRES_URL is not set (start a server with `.ci/postgres start` and export the "
      + "URL it prints)")

  struct Missing: Error, CustomStringConvertible {
    var description: String {
      "CI is set but SPOOL_POSTGRES_URL is not: .ci/run must start PostgreSQL (.ci/postgres) "
        + "and export its URL"
    }
  }

  static func requireURL() throws -> String {
    guard let url else { throw Missing() }
    return url
  }

  /// A schema name no other test uses, so that tests run in parallel.
  static func uniqueSchema(_ label: String) -> String {
    "t_\(label)_\(UInt32.random(in: 0...UInt32.max))"
  }

  /// A configuration for `schema`, with `nodeAddress` as the node's address.
  static func configuration(
    schema: String, nodeAddress: String
  ) throws -> PostgresJournalConfiguration {
    var configuration = try PostgresJournalConfiguration(
      url: try requireURL(), nodeAddress: nodeAddress)
    configuration.schema = schema
    return configuration
  }

  static func node(schema: String, nodeAddress: String) async throws -> PostgresJournalNode {
    try await PostgresJournalNode.connect(configuration(schema: schema, nodeAddress: nodeAddress))
  }

  /// Runs `body` with a connection of the test's own (as an operator's `psql`), closed after.
  static func withAdmin<T>(
    _ body: (PostgresConnection) async throws -> T
  ) async throws -> T {
    let configuration = try self.configuration(schema: "unused", nodeAddress: "admin")
    let connection = try await PostgresConnection.connect(
      configuration: configuration.connection, id: 0, logger: configuration.logger)
    do {
      let result = try await body(connection)
      try await connection.close()
      return result
    } catch {
      try? await connection.close()
      throw error
    }
  }

  /// Drops `schema` and everything in it.
  static func drop(_ schema: String) async {
    _ = try? await withAdmin { connection in
      try await connection.query(
        PostgresQuery(unsafeSQL: "DROP SCHEMA IF EXISTS \(schema) CASCADE"),
        logger: Logger(label: "test"))
    }
  }
}

extension PostgresConnection {
  /// Runs `sql` and decodes its rows as `Row`.
  func rows<each Column: PostgresDecodable & Sendable>(
    _ sql: String, as _: (repeat each Column).Type
  ) async throws -> [(repeat each Column)] {
    var result: [(repeat each Column)] = []
    for try await row in try await query(
      PostgresQuery(unsafeSQL: sql), logger: Logger(label: "test")
    ).decode((repeat each Column).self) {
      result.append(row)
    }
    return result
  }

  func run(_ sql: String) async throws {
    try await query(PostgresQuery(unsafeSQL: sql), logger: Logger(label: "test"))
  }
}

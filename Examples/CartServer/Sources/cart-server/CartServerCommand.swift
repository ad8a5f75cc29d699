import ArgumentParser
import CartServer
import Logging

/// `cart-server`: the cart service on Spool stores (default) or on plain actors.
@main
struct CartServerCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "cart-server",
    abstract: "A cart service: one Spool store (or one plain actor) per cart.")

  @Option(help: "The address to listen on.")
  var host = "127.0.0.1"

  @Option(help: "The port to listen on (0 picks a free one).")
  var port = 8080

  @Option(help: "Which carts serve the requests: spool, actors or postgres.")
  var backend = "spool"

  @Option(help: "The PostgreSQL of the postgres backend (postgres://user@host:port/database).")
  var postgresURL: String?

  @Option(help: "The PostgreSQL schema of the carts' tables (postgres backend).")
  var postgresSchema = "spool"

  @Option(
    help: "The address other processes reach this one at (postgres backend; host:port by default).")
  var nodeAddress: String?

  @Option(help: "How long an idle cart stays in memory, in seconds.")
  var idleSeconds = 300

  @Option(help: "How long a reservation holds a cart, in seconds.")
  var reservationSeconds = 30

  @Option(help: "The log level: trace, debug, info, notice, warning, error or critical.")
  var logLevel = "info"

  func run() async throws {
    guard let backend = CartServerConfiguration.Backend(rawValue: backend) else {
      throw ValidationError("--backend must be spool, actors or postgres, not \(backend)")
    }
    guard backend != .postgres || postgresURL != nil else {
      throw ValidationError("--backend postgres needs --postgres-url")
    }
    guard idleSeconds >= 1 else {
      throw ValidationError("--idle-seconds must be at least 1, not \(idleSeconds)")
    }
    guard let level = Logger.Level(rawValue: logLevel) else {
      throw ValidationError("--log-level must be one of trace ... critical, not \(logLevel)")
    }
    var logger = Logger(label: "cart-server")
    logger.logLevel = level
    let server = CartServer(
      configuration: CartServerConfiguration(
        host: host, port: port, backend: backend,
        reservationDuration: .seconds(reservationSeconds), idleTimeout: .seconds(idleSeconds),
        postgresURL: postgresURL, postgresSchema: postgresSchema, nodeAddress: nodeAddress),
      logger: logger)
    try await server.run()
  }
}

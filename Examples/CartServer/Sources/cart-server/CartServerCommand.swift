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

  @Option(help: "Which carts serve the requests: spool or actors.")
  var backend = "spool"

  @Option(help: "How long a reservation holds a cart, in seconds.")
  var reservationSeconds = 30

  @Option(help: "The log level: trace, debug, info, notice, warning, error or critical.")
  var logLevel = "info"

  func run() async throws {
    guard let backend = CartServerConfiguration.Backend(rawValue: backend) else {
      throw ValidationError("--backend must be spool or actors, not \(backend)")
    }
    guard let level = Logger.Level(rawValue: logLevel) else {
      throw ValidationError("--log-level must be one of trace ... critical, not \(logLevel)")
    }
    var logger = Logger(label: "cart-server")
    logger.logLevel = level
    let server = CartServer(
      configuration: CartServerConfiguration(
        host: host, port: port, backend: backend,
        reservationDuration: .seconds(reservationSeconds)),
      logger: logger)
    try await server.run()
  }
}

/// How to run the cart service.
public struct CartServerConfiguration: Sendable {
  /// Which carts serve the requests.
  public enum Backend: String, Sendable, CaseIterable {
    /// A Spool store per cart, in a `StoreRegistry` (the example).
    case spool
    /// A plain actor per cart (the baseline).
    case actors
  }

  /// The address to listen on.
  public var host: String
  /// The port to listen on; 0 picks a free one.
  public var port: Int
  /// Which carts serve the requests.
  public var backend: Backend
  /// How long a reservation holds a cart.
  public var reservationDuration: Duration
  /// How long an idle cart's store stays in memory (Spool backend).
  public var idleTimeout: Duration
  /// How long effects may run once the graceful shutdown began, before they are cancelled.
  public var shutdownGracePeriod: Duration

  public init(
    host: String = "127.0.0.1",
    port: Int = 8080,
    backend: Backend = .spool,
    reservationDuration: Duration = .seconds(30),
    idleTimeout: Duration = .seconds(300),
    shutdownGracePeriod: Duration = .seconds(10)
  ) {
    self.host = host
    self.port = port
    self.backend = backend
    self.reservationDuration = reservationDuration
    self.idleTimeout = idleTimeout
    self.shutdownGracePeriod = shutdownGracePeriod
  }
}

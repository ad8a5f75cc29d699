/// How to run the cart service.
public struct CartServerConfiguration: Sendable {
  /// Which carts serve the requests.
  public enum Backend: String, Sendable, CaseIterable {
    /// A Spool store per cart, in a `StoreRegistry` (the example).
    case spool
    /// A plain actor per cart (the baseline).
    case actors
    /// A Spool store per cart whose journal and ownership live in PostgreSQL
    /// (``CartServerConfiguration/postgresURL``): one of several processes sharing a database.
    case postgres
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
  /// The PostgreSQL of the `postgres` backend, as a URL
  /// (`postgres://user@127.0.0.1:5432/database`).
  public var postgresURL: String?
  /// The PostgreSQL schema that holds the carts' tables (created when missing).
  public var postgresSchema: String
  /// The address other processes (and nginx) reach this one at, recorded in PostgreSQL as the
  /// owner of the carts it holds; `host:port` when `nil`.
  public var nodeAddress: String?

  public init(
    host: String = "127.0.0.1",
    port: Int = 8080,
    backend: Backend = .spool,
    reservationDuration: Duration = .seconds(30),
    idleTimeout: Duration = .seconds(300),
    shutdownGracePeriod: Duration = .seconds(10),
    postgresURL: String? = nil,
    postgresSchema: String = "spool",
    nodeAddress: String? = nil
  ) {
    self.host = host
    self.port = port
    self.backend = backend
    self.reservationDuration = reservationDuration
    self.idleTimeout = idleTimeout
    self.shutdownGracePeriod = shutdownGracePeriod
    self.postgresURL = postgresURL
    self.postgresSchema = postgresSchema
    self.nodeAddress = nodeAddress
  }
}

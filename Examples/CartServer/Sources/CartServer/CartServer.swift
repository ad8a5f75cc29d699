import CartFeature
import Hummingbird
import Logging
import Metrics
import Prometheus
import ServiceLifecycle
import SpoolLogging
import SpoolPostgres

/// The cart service: Hummingbird routes over a ``CartBackend``, `/metrics` in Prometheus's
/// text format, run as swift-service-lifecycle services.
public struct CartServer: Sendable {
  public let configuration: CartServerConfiguration
  public let logger: Logger
  /// Where the service's metrics go; `/metrics` serves its text.
  public let metrics: PrometheusCollectorRegistry

  public init(
    configuration: CartServerConfiguration, logger: Logger,
    metrics: PrometheusCollectorRegistry = PrometheusCollectorRegistry()
  ) {
    self.configuration = configuration
    self.logger = logger
    self.metrics = metrics
  }

  /// The application: its routes, and its services, which its `ServiceGroup` starts before
  /// the HTTP server and shuts down after it (so no request reaches a cart that is shutting
  /// down).
  ///
  /// - Parameter onServerRunning: Called with the listening port once the server accepts
  ///   connections.
  /// - Throws: For the `postgres` backend, a missing URL or a database that cannot be reached.
  public func makeApplication(
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
  ) async throws -> some ApplicationProtocol {
    let router = Router()
    let services: [any Service]
    // What a scrape does first: the Spool stores' instrumentation publishes the action times
    // it has counted, so that the exposition holds every action reduced before the request.
    let publishMetrics: @Sendable () -> Void
    switch configuration.backend {
    case .spool:
      let backend = SpoolCartBackend(
        configuration: configuration, logger: logger,
        metricsFactory: PrometheusMetricsFactory(registry: metrics))
      addCartRoutes(to: router, backend: backend)
      services = [backend.service]
      let instrumentation = backend.instrumentation
      publishMetrics = { instrumentation.publish() }
    case .postgres:
      guard let url = configuration.postgresURL else {
        throw CartServerError("the postgres backend needs a PostgreSQL URL (--postgres-url)")
      }
      let nodeAddress = configuration.nodeAddress ?? "\(configuration.host):\(configuration.port)"
      var postgres = try PostgresJournalConfiguration(url: url, nodeAddress: nodeAddress)
      postgres.schema = configuration.postgresSchema
      postgres.logger = logger
      let node = try await PostgresJournalNode.connect(postgres)
      let backend = PostgresCartBackend(node: node, configuration: configuration, logger: logger)
      addCartRoutes(to: router, backend: backend)
      // Shut down in reverse order: the HTTP server, then the carts (snapshots, leases
      // released), then the node's connections.
      services = [PostgresNodeService(node: node), backend.service]
      publishMetrics = {}
    case .actors:
      addCartRoutes(
        to: router,
        backend: ActorCartBackend(reservationDuration: configuration.reservationDuration))
      services = []
      publishMetrics = {}
    }
    router.get("metrics") { [metrics] _, _ in
      publishMetrics()
      return Response(
        status: .ok,
        headers: [.contentType: "text/plain; version=0.0.4"],
        body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics.emitToBuffer())))
    }
    return Application(
      router: router,
      configuration: ApplicationConfiguration(
        address: .hostname(configuration.host, port: configuration.port),
        serverName: "cart-server"),
      services: services,
      onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? 0) },
      logger: logger)
  }

  /// Runs the service until SIGTERM or SIGINT, then shuts it down gracefully: the HTTP server
  /// first, then the carts.
  public func run() async throws {
    // Spool's misuse reports and effects' unhandled errors go to the service's log.
    LoggingIssueReporter.install(logger)
    try await makeApplication().runService()
  }
}

/// A cart service that cannot start, and why.
public struct CartServerError: Error, CustomStringConvertible {
  public var description: String

  init(_ description: String) { self.description = description }
}

/// Closes a PostgreSQL node when the service group shuts down: after the services that come
/// after it in the group, which shut down first.
struct PostgresNodeService: Service {
  let node: PostgresJournalNode

  func run() async throws {
    try? await gracefulShutdown()
    await node.close()
  }
}

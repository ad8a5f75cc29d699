import Logging
import ServiceLifecycle
import SpoolCore

/// A swift-service-lifecycle `Service` that shuts a `StoreRegistry` and all its stores down
/// gracefully.
///
/// Its ``run()`` waits for the graceful shutdown of the `ServiceGroup` that runs it (a signal,
/// or `triggerGracefulShutdown()`), then calls the registry's `shutdown(deadline:)` with a
/// deadline ``gracePeriod`` away, and returns once it has returned:
///
/// 1. the registry takes no new calls (a request for any ID throws `StoreRegistryError` with
///    the `shutDown` code, and creates no store), and the calls in flight end;
/// 2. each store reduces its queued actions and its running effects end by themselves, until
///    the deadline;
/// 3. at the deadline, the effects still running are cancelled (a call still holding its
///    store past it ends first, its actions reduced), and the stores shut down;
/// 4. each store's final state goes to the registry's `onEvict` (to close or snapshot what it
///    owns).
///
/// When its task is cancelled before the graceful shutdown (the group's cancellation), it shuts
/// the registry down with no grace period. A cancellation during the grace period does not
/// shorten it: the registry's shutdown already runs, to the deadline set when it began.
///
/// The routes that send the stores actions must stop first, so list this service before the
/// HTTP server in the group (a `ServiceGroup` shuts its services down in the reverse of their
/// order); with Hummingbird, pass it in the application's `services:`, which run before its
/// server.
///
/// It logs to ``logger`` when it starts (level `debug`), when the graceful shutdown begins
/// (`info`, with the number of live stores) and when it ended (`info`).
///
/// ```swift
/// let carts = StoreRegistry<String, Cart.State, Cart.Action> { id in
///   Store(initialState: Cart.State()) { Cart() }
/// }
/// let group = ServiceGroup(
///   services: [StoreRegistryService(carts, logger: logger), httpServer],
///   gracefulShutdownSignals: [.sigterm],
///   logger: logger
/// )
/// try await group.run()
/// ```
public struct StoreRegistryService<ID: Hashable & Sendable, State: Sendable, Action: Sendable>:
  Service
{
  /// The registry that the service shuts down.
  public let registry: StoreRegistry<ID, State, Action>

  /// How long the stores' running effects may go on after the graceful shutdown began, before
  /// they are cancelled.
  public let gracePeriod: Duration

  /// The logger that receives the service's records.
  public let logger: Logger

  /// A service that shuts `registry` down gracefully, giving the stores' effects `gracePeriod`
  /// to end.
  ///
  /// - Parameters:
  ///   - registry: The registry to shut down.
  ///   - gracePeriod: How long running effects may go on once the graceful shutdown began; 10
  ///     seconds by default. Zero cancels them at once.
  ///   - logger: The logger for the service's records.
  ///
  /// ```swift
  /// let service = StoreRegistryService(carts, gracePeriod: .seconds(5), logger: logger)
  /// ```
  public init(
    _ registry: StoreRegistry<ID, State, Action>,
    gracePeriod: Duration = .seconds(10),
    logger: Logger = Logger(label: "spool.store-registry-service")
  ) {
    self.registry = registry
    self.gracePeriod = gracePeriod
    self.logger = logger
  }

  /// Waits for the graceful shutdown, then shuts the registry down as
  /// ``StoreRegistryService`` describes.
  ///
  /// Returns once the registry's shutdown has returned; throws nothing (a cancellation shuts
  /// the registry down at once).
  ///
  /// ```swift
  /// try await StoreRegistryService(carts).run()
  /// ```
  public func run() async throws {
    logger.debug("Waiting for the graceful shutdown")
    do {
      try await gracefulShutdown()
    } catch {
      // Cancelled before any graceful shutdown: no grace period.
      await registry.shutdown(deadline: .now)
      return
    }
    logger.info(
      "Graceful shutdown: shutting the registry's stores down",
      metadata: [
        "spool.live_stores": "\(registry.count)",
        "spool.grace_period": "\(gracePeriod)",
      ])
    await registry.shutdown(deadline: .now + gracePeriod)
    logger.info("Graceful shutdown: the registry's stores have shut down")
  }
}

import Logging
import ServiceLifecycle
import SpoolCore

/// A swift-service-lifecycle `Service` that shuts one Spool `Store` down gracefully.
///
/// Its ``run()`` waits for the graceful shutdown of the `ServiceGroup` that runs it (a signal,
/// or `triggerGracefulShutdown()`), then:
///
/// 1. waits for the store to finish: the actions already queued are reduced, and the running
///    effects end by themselves (the actions they send are reduced too), for at most
///    ``gracePeriod``;
/// 2. shuts the store down (`Store.shutdown()`): it refuses later actions, and the
///    effects still running when the grace period ran out are cancelled;
/// 3. waits for the cancelled effects to end, and returns.
///
/// When its task is cancelled instead (the group's cancellation, or the end of its maximum
/// graceful shutdown duration), it shuts the store down at once and waits for the cancelled
/// effects to end. An effect that ignores cancellation keeps ``run()`` waiting, as it keeps
/// `Store.finish()` waiting.
///
/// The store keeps taking actions during the grace period, so that effects can send theirs. So
/// the services that send it actions must stop first: `ServiceGroup` shuts its services down
/// in the reverse of their order, so list this service before them (before the HTTP server
/// whose routes send actions).
///
/// It logs to ``logger`` when it starts (level `debug`), when the graceful shutdown begins
/// (`info`, with the count of running effects) and how it ended (`info` when the effects ended
/// in time, `notice` when some were cancelled).
///
/// ```swift
/// let store = Store(initialState: Ticker.State()) { Ticker() }
/// let group = ServiceGroup(
///   services: [StoreService(store, logger: logger), httpServer],
///   gracefulShutdownSignals: [.sigterm],
///   logger: logger
/// )
/// try await group.run()
/// ```
public struct StoreService<State: Sendable, Action: Sendable>: Service {
  /// The store that the service shuts down.
  public let store: Store<State, Action>

  /// How long running effects may go on after the graceful shutdown began, before the store
  /// cancels them.
  public let gracePeriod: Duration

  /// The logger that receives the service's records.
  public let logger: Logger

  /// A service that shuts `store` down gracefully, giving its effects `gracePeriod` to end.
  ///
  /// - Parameters:
  ///   - store: The store to shut down.
  ///   - gracePeriod: How long running effects may go on once the graceful shutdown began; 10
  ///     seconds by default. Zero cancels them at once.
  ///   - logger: The logger for the service's records.
  ///
  /// ```swift
  /// let service = StoreService(store, gracePeriod: .seconds(5), logger: logger)
  /// ```
  public init(
    _ store: Store<State, Action>,
    gracePeriod: Duration = .seconds(10),
    logger: Logger = Logger(label: "spool.store-service")
  ) {
    self.store = store
    self.gracePeriod = gracePeriod
    self.logger = logger
  }

  /// Waits for the graceful shutdown, then shuts the store down as ``StoreService`` describes.
  ///
  /// Returns once the store has shut down and its effects have ended; throws nothing (a
  /// cancellation shuts the store down at once).
  ///
  /// ```swift
  /// try await StoreService(store).run()
  /// ```
  public func run() async throws {
    logger.debug("Waiting for the graceful shutdown")
    do {
      try await gracefulShutdown()
    } catch {
      // Cancelled before any graceful shutdown: no grace period.
      await store.shutdown()
      await store.finish()
      return
    }
    logger.info(
      "Graceful shutdown: waiting for the store's effects to end",
      metadata: [
        "spool.effects": "\(store.runningEffectCount)",
        "spool.grace_period": "\(gracePeriod)",
      ])
    let cancelled = await GracefulStoreShutdown.run(gracePeriod: gracePeriod) {
      await store.finish()
    } shutdown: {
      await store.shutdown()
    }
    if cancelled {
      logger.notice("Graceful shutdown: the grace period ran out; running effects were cancelled")
    } else {
      logger.info("Graceful shutdown: the store's effects ended")
    }
  }
}

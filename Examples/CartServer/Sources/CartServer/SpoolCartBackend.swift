import CartFeature
import Hummingbird
import Logging
import Metrics
import Spool
import SpoolMetrics
import SpoolServiceLifecycle

/// The carts as Spool stores, one per cart ID, in a `StoreRegistry`: created on first use,
/// evicted after ``CartServerConfiguration/idleTimeout`` unused, shut down by ``service``.
///
/// All the stores share one `MetricsInstrumentation` (their figures add up under the `store`
/// label `cart`, rather than one time series per cart), and the registry's live-stores count
/// feeds the `cart_live_stores` gauge.
final class SpoolCartBackend: CartBackend {
  let registry: StoreRegistry<String, CartFeature.State, CartFeature.Action>
  /// The instrumentation of every cart store; `/metrics` publishes its counts before it renders.
  let instrumentation: MetricsInstrumentation<CartFeature.Action>
  /// Shuts the registry down gracefully: a service of the application, so that it runs
  /// before the HTTP server and shuts down after it.
  let service: StoreRegistryService<String, CartFeature.State, CartFeature.Action>

  init(
    configuration: CartServerConfiguration, logger: Logger, metricsFactory: any MetricsFactory
  ) {
    let instrumentation = MetricsInstrumentation<CartFeature.Action>(
      store: "cart", factory: metricsFactory)
    self.instrumentation = instrumentation
    let liveCarts = Gauge(label: "cart_live_stores", factory: metricsFactory)
    let reservationDuration = configuration.reservationDuration
    registry = StoreRegistry(
      configuration: StoreRegistryConfiguration(idleTimeout: configuration.idleTimeout),
      onLiveStoresChange: { liveCarts.record($0) }
    ) { _ in
      Store(initialState: CartFeature.State(), instrumentation: instrumentation) {
        CartFeature(reservationDuration: reservationDuration)
      } withDependencies: {
        // The live clock, stated: under a test runner the default would be a clock that
        // fails the test.
        $0.continuousClock = ContinuousClock()
      }
    }
    service = StoreRegistryService(
      registry, gracePeriod: configuration.shutdownGracePeriod, logger: logger)
  }

  func addItem(cart id: String, sku: String, quantity: Int) async throws -> CartFeature.State {
    try await unavailableOnShutdown {
      try await registry.send(.addItem(sku: sku, quantity: quantity), to: id) { $0 }
    }
  }

  func cart(_ id: String) async throws -> CartFeature.State {
    try await unavailableOnShutdown { try await registry.withStore(id) { await $0.state } }
  }

  func reserve(cart id: String) async throws -> CartFeature.State {
    try await unavailableOnShutdown { try await registry.send(.reserve, to: id) { $0 } }
  }

  func checkout(cart id: String) async throws -> CartFeature.State {
    try await unavailableOnShutdown { try await registry.send(.checkout, to: id) { $0 } }
  }

  /// Runs `body`; a registry that has begun to shut down answers 503 Service Unavailable.
  private func unavailableOnShutdown(
    _ body: () async throws -> CartFeature.State
  ) async throws -> CartFeature.State {
    do {
      return try await body()
    } catch let error as StoreRegistryError where error.code == .shutDown {
      throw HTTPError(.serviceUnavailable)
    }
  }
}

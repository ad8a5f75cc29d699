import CartFeature
import HTTPTypes
import Hummingbird
import Logging
import Spool
import SpoolPostgres
import SpoolServiceLifecycle

/// The carts as Spool stores whose journals and ownership live in PostgreSQL: one of several
/// `cart-server` processes sharing one database.
///
/// A cart is served by the process that holds its lease. The first request for a cart takes
/// the lease, recovers the cart (newest snapshot, then the journal after it) and sends it
/// `.recovered`; an idle cart is evicted with a snapshot, and its lease released, after
/// ``CartServerConfiguration/idleTimeout``. A request answers only once its action is
/// committed in PostgreSQL (a durable acknowledgement), so a `kill -9` loses no answered action.
///
/// A request for a cart that another live process holds answers `307 Temporary Redirect`
/// with the owner's address (as recorded in PostgreSQL) in `X-Spool-Owner` and in `Location`:
/// nginx forwards it there (`cluster/nginx.conf.template`), and a client that
/// talks to the processes directly can follow it. A cart whose journal fails is evicted at
/// once and answers `503 Service Unavailable`: its writes were refused because another process
/// took it over (this process was cut off from PostgreSQL for a while; the next request finds
/// the new owner), or PostgreSQL could not be reached (the next request takes the cart again
/// and recovers what was committed, once PostgreSQL answers; until then it answers `503`).
final class PostgresCartBackend: CartBackend {
  let node: PostgresJournalNode
  let carts: PostgresJournalDirectory<String, CartFeature.State, CartFeature.Action>
  let registry: StoreRegistry<String, CartFeature.State, CartFeature.Action>
  /// Shuts the registry down gracefully (every cart evicted with a snapshot), then closes the
  /// node's connections, which releases what leases remain.
  let service: StoreRegistryService<String, CartFeature.State, CartFeature.Action>
  let logger: Logger

  init(node: PostgresJournalNode, configuration: CartServerConfiguration, logger: Logger) {
    self.node = node
    self.logger = logger
    let carts = PostgresJournalDirectory<String, CartFeature.State, CartFeature.Action>(
      node: node, key: { "cart:\($0)" })
    self.carts = carts
    let reservationDuration = configuration.reservationDuration
    registry = StoreRegistry(
      configuration: StoreRegistryConfiguration(idleTimeout: configuration.idleTimeout),
      onEvict: { id, state in
        do {
          try await carts.evict(id, finalState: state)
        } catch {
          // The journal still recovers what was committed; the next owner starts from there.
          logger.warning("cart \(id): no snapshot at eviction: \(error)")
        }
      }
    ) { id in
      let feature = CartFeature(reservationDuration: reservationDuration)
      let recovery = try await carts.take(id, initialState: CartFeature.State()) { feature }
      let store = Store(initialState: recovery.state, instrumentation: recovery.recorder) {
        feature
      } withDependencies: {
        // The live clock, stated: under a test runner the default would fail the test.
        $0.continuousClock = ContinuousClock()
      }
      await store.send(.recovered)
      return store
    }
    service = StoreRegistryService(
      registry, gracePeriod: configuration.shutdownGracePeriod, logger: logger)
  }

  func addItem(cart id: String, sku: String, quantity: Int) async throws -> CartFeature.State {
    try await durably(id, .addItem(sku: sku, quantity: quantity), path: "/carts/\(id)/items")
  }

  func cart(_ id: String) async throws -> CartFeature.State {
    try await answering(id, path: "/carts/\(id)") {
      try await registry.withStore(id) { store in
        // A cart whose journal failed may hold actions that were never committed: not shown.
        if let failure = carts.recorder(for: id)?.failure { throw failure }
        return await store.state
      }
    }
  }

  func reserve(cart id: String) async throws -> CartFeature.State {
    try await durably(id, .reserve, path: "/carts/\(id)/reserve")
  }

  func checkout(cart id: String) async throws -> CartFeature.State {
    try await durably(id, .checkout, path: "/carts/\(id)/checkout")
  }

  /// Reduces `action` in the cart `id` and returns the state after it once the action is
  /// committed in PostgreSQL.
  private func durably(
    _ id: String, _ action: CartFeature.Action, path: String
  ) async throws -> CartFeature.State {
    try await answering(id, path: path) {
      try await registry.withStore(id) { store in
        // The recorder is the store's: made with it, and not evicted while this call holds it.
        let state = await store.send(action, reading: { $0 })
        guard let recorder = carts.recorder(for: id) else {
          throw HTTPError(.serviceUnavailable, message: "cart \(id) has no journal")
        }
        try await recorder.waitUntilDurable()
        return state
      }
    }
  }

  /// Runs `body` and turns what the registry and the journal throw into HTTP answers; `path`
  /// is the request's, for the owner's `Location`.
  private func answering(
    _ id: String, path: String, _ body: () async throws -> CartFeature.State
  ) async throws -> CartFeature.State {
    do {
      return try await body()
    } catch let error as StoreRegistryError where error.code == .shutDown {
      throw HTTPError(.serviceUnavailable)
    } catch let error as PostgresJournalError {
      switch error.code {
      case .ownedElsewhere:
        guard let owner = error.owner else { throw HTTPError(.serviceUnavailable) }
        throw HTTPError(
          .temporaryRedirect,
          headers: [.location: "http://\(owner)\(path)", .spoolOwner: owner])
      case .cancelled:
        // The request went away while its action committed: nothing to answer.
        throw CancellationError()
      case .fenced:
        // Another process took the cart over: this store must not serve it any more.
        logger.warning("cart \(id): \(error)")
        await registry.evict(id)
        throw HTTPError(.serviceUnavailable, message: "cart \(id) moved to another process")
      default:
        // PostgreSQL unreachable, a connection broken, or a journal that does not recover.
        // A store whose journal failed runs ahead of what is committed and records nothing
        // more: it is evicted (no snapshot is written from it), and the next request takes the
        // cart again and recovers exactly what was committed, once PostgreSQL answers. When no
        // store was made (taking the cart failed), there is nothing to evict.
        logger.error("cart \(id): \(error)")
        await registry.evict(id)
        throw HTTPError(.serviceUnavailable, message: "cart \(id) cannot be journaled now")
      }
    }
  }
}

extension HTTPField.Name {
  /// The address of the process that owns a cart, on a `307` answer.
  static let spoolOwner = HTTPField.Name("X-Spool-Owner")!
}

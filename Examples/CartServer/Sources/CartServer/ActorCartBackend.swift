import CartFeature
import Synchronization

/// The carts as plain actors in a dictionary guarded by a mutex: the baseline that
/// ``SpoolCartBackend`` is measured against. No eviction, no metrics, no graceful shutdown:
/// what a server written without Spool starts with.
public final class ActorCartBackend: CartBackend {
  private let carts = Mutex<[String: CartActor]>([:])
  private let reservationDuration: Duration

  /// A backend whose reservations last `reservationDuration`.
  public init(reservationDuration: Duration) {
    self.reservationDuration = reservationDuration
  }

  private func actor(_ id: String) -> CartActor {
    carts.withLock { carts in
      if let cart = carts[id] { return cart }
      let cart = CartActor(reservationDuration: reservationDuration)
      carts[id] = cart
      return cart
    }
  }

  public func addItem(cart id: String, sku: String, quantity: Int) async -> CartFeature.State {
    await actor(id).addItem(sku: sku, quantity: quantity)
  }

  public func cart(_ id: String) async -> CartFeature.State {
    await actor(id).snapshot
  }

  public func reserve(cart id: String) async -> CartFeature.State {
    await actor(id).reserve()
  }

  public func checkout(cart id: String) async -> CartFeature.State {
    await actor(id).checkout()
  }
}

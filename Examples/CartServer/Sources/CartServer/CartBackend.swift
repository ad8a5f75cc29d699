import CartFeature

/// What the routes need of the carts: one call per request, which returns the cart's state
/// right after the request's action (no other request's action in between).
///
/// Two implementations: ``SpoolCartBackend`` (a Spool store per cart, in a `StoreRegistry`)
/// and ``ActorCartBackend`` (a plain actor per cart), so that the same service can be measured
/// on both.
public protocol CartBackend: Sendable {
  /// Adds `quantity` of `sku` to the cart `id`, creating the cart if needed.
  func addItem(cart id: String, sku: String, quantity: Int) async throws -> CartFeature.State
  /// The state of the cart `id`, creating the cart if needed.
  func cart(_ id: String) async throws -> CartFeature.State
  /// Reserves the cart `id`.
  func reserve(cart id: String) async throws -> CartFeature.State
  /// Checks the cart `id` out.
  func checkout(cart id: String) async throws -> CartFeature.State
}

import CartFeature
import Hummingbird

/// The body of `POST /carts/{id}/items`.
struct AddItemRequest: Decodable, Sendable {
  var sku: String
  var quantity: Int
}

/// A cart as the service returns it.
struct CartResponse: ResponseEncodable, Sendable {
  var id: String
  var items: [String: Int]
  var status: CartFeature.Status
  var refusal: CartFeature.Refusal?

  init(id: String, state: CartFeature.State) {
    self.id = id
    self.items = state.items
    self.status = state.status
    self.refusal = state.refusal
  }
}

/// The routes of the cart service over `backend`; a refused action answers 409 Conflict with
/// the cart and the reason.
func addCartRoutes<Context: RequestContext>(
  to router: Router<Context>, backend: some CartBackend
) {
  let carts = router.group("carts")
  carts.get(":id") { _, context in
    let id = try context.parameters.require("id")
    return respond(id: id, state: try await backend.cart(id))
  }
  carts.post(":id/items") { request, context in
    let id = try context.parameters.require("id")
    let body = try await request.decode(as: AddItemRequest.self, context: context)
    return respond(
      id: id, state: try await backend.addItem(cart: id, sku: body.sku, quantity: body.quantity))
  }
  carts.post(":id/reserve") { _, context in
    let id = try context.parameters.require("id")
    return respond(id: id, state: try await backend.reserve(cart: id))
  }
  carts.post(":id/checkout") { _, context in
    let id = try context.parameters.require("id")
    return respond(id: id, state: try await backend.checkout(cart: id))
  }
}

private func respond(id: String, state: CartFeature.State) -> EditedResponse<CartResponse> {
  EditedResponse(
    status: state.refusal == nil ? .ok : .conflict,
    response: CartResponse(id: id, state: state))
}

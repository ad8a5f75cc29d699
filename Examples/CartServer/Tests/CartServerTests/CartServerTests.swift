import CartFeature
import CartServer
import Foundation
import Logging
import ServiceLifecycle
import Testing

/// The service on a real socket: the server listens on 127.0.0.1 (a port the system picks),
/// the requests are real HTTP requests, and the service group shuts down gracefully at the end.
@Suite(.timeLimit(.minutes(2)))
struct CartServerTests {
  /// A cart as the service returns it.
  struct Cart: Decodable, Equatable {
    var id: String
    var items: [String: Int]
    var status: String
    var refusal: String?
  }

  /// Runs the service with `backend` in a `ServiceGroup`, calls `body` with a client of it,
  /// then shuts the group down gracefully and waits for it.
  func withServer(
    backend: CartServerConfiguration.Backend,
    _ body: (HTTPClient) async throws -> Void
  ) async throws {
    let logger = Logger(label: "cart-server-tests") { _ in SwiftLogNoOpLogHandler() }
    let server = CartServer(
      configuration: CartServerConfiguration(host: "127.0.0.1", port: 0, backend: backend),
      logger: logger)
    let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
    let application = try await server.makeApplication { port in portContinuation.yield(port) }
    let group = ServiceGroup(services: [application], logger: logger)
    let running = Task { try await group.run() }
    var iterator = ports.makeAsyncIterator()
    let port = try #require(await iterator.next())
    do {
      try await body(HTTPClient(port: port))
    } catch {
      await group.triggerGracefulShutdown()
      _ = try? await running.value
      throw error
    }
    await group.triggerGracefulShutdown()
    try await running.value
  }

  func decode(_ body: String) throws -> Cart {
    try JSONDecoder().decode(Cart.self, from: Data(body.utf8))
  }

  @Test(arguments: [CartServerConfiguration.Backend.spool, .actors])
  func aCartsLifeOverHTTP(backend: CartServerConfiguration.Backend) async throws {
    try await withServer(backend: backend) { client in
      var response = try await client.request(
        "POST", "carts/c1/items", json: #"{"sku":"tea","quantity":2}"#)
      #expect(response.status == 200)
      #expect(try decode(response.body) == Cart(id: "c1", items: ["tea": 2], status: "open"))

      response = try await client.request("GET", "carts/c1")
      #expect(try decode(response.body).items == ["tea": 2])

      response = try await client.request("POST", "carts/c1/reserve")
      #expect(response.status == 200)
      #expect(try decode(response.body).status == "reserved")

      response = try await client.request(
        "POST", "carts/c1/items", json: #"{"sku":"cup","quantity":1}"#)
      #expect(response.status == 409)
      #expect(try decode(response.body).refusal == "notOpen")

      response = try await client.request("POST", "carts/c1/checkout")
      #expect(response.status == 200)
      #expect(try decode(response.body).status == "checkedOut")

      // Another cart is another entity.
      response = try await client.request("GET", "carts/c2")
      #expect(try decode(response.body) == Cart(id: "c2", items: [:], status: "open"))

      response = try await client.request("POST", "carts/c2/items", json: #"{"sku":1}"#)
      #expect(response.status == 400)
    }
  }

  @Test func metricsAreServedInPrometheusFormat() async throws {
    try await withServer(backend: .spool) { client in
      _ = try await client.request("POST", "carts/c1/items", json: #"{"sku":"tea","quantity":1}"#)
      let response = try await client.request("GET", "metrics")
      #expect(response.status == 200)
      #expect(response.body.contains(#"spool_action_reduce_seconds_count{store="cart",action="addItem"} 1"#))
    }
  }
}

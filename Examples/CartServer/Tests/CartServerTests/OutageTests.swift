import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A real `cart-server` process (`--backend postgres`) whose link to PostgreSQL goes through a
/// loopback relay that the test cuts and restores: PostgreSQL unreachable mid-run, for real.
///
/// Needs what ``ClusterTests`` needs; disabled, with the reason, without it.
@Suite(
  .enabled(if: ClusterRequirements.enabled, ClusterRequirements.disabledReason),
  .timeLimit(.minutes(10)))
struct OutageTests {
  /// Items added (each answered once committed), then the relay cut: adding answers `503`
  /// (nothing acknowledged that is not committed), and so does reading the cart (its store
  /// was evicted: it may hold an action never committed). Restored, the same process takes
  /// the cart again and serves exactly the committed items and new ones.
  @Test func aCartCutOffFromPostgreSQLAnswers503AndServesItsCommittedItemsAfter() async throws {
    var environment = try ClusterRequirements.environment.get()
    var url = try #require(URLComponents(string: environment.postgresURL))
    let proxy = try LoopbackProxy(upstreamPort: try #require(url.port))
    defer { proxy.stop() }
    url.port = proxy.port
    environment.postgresURL = try #require(url.string)
    let cluster = try Cluster(environment: environment, nodes: 1, idleSeconds: 600)
    defer { cluster.remove() }
    do {
      try await cluster.start()
      try await Self.run(cluster, proxy)
      await cluster.stop()
    } catch {
      await cluster.stop()
      Issue.record("\(error)\n\(cluster.logs())")
    }
  }

  static func run(_ cluster: Cluster, _ proxy: LoopbackProxy) async throws {
    let session = ClusterTests.session()
    let node = "http://127.0.0.1:\(cluster.nodePorts[0])"
    let items = "\(node)/carts/c1/items"
    for sku in ["a", "b", "c"] {
      #expect(await ClusterTests.add(session, items, sku: sku) == 200)
    }

    proxy.cut()
    #expect(await ClusterTests.add(session, items, sku: "lost") == 503)
    let (_, read) = try await session.data(from: URL(string: "\(node)/carts/c1")!)
    #expect((read as? HTTPURLResponse)?.statusCode == 503)
    #expect(await ClusterTests.add(session, items, sku: "lost") == 503)

    proxy.restore()
    // Retried (bounded) until the process reaches PostgreSQL again and its old session's
    // lease is gone.
    var status = 0
    for _ in 0..<200 {
      status = await ClusterTests.add(session, items, sku: "d")
      if status == 200 { break }
      try await Task.sleep(for: .milliseconds(50))
    }
    #expect(status == 200)
    let after = try await ClusterTests.items(of: "c1", session, node)
    #expect(after == ["a": 1, "b": 1, "c": 1, "d": 1])
  }
}

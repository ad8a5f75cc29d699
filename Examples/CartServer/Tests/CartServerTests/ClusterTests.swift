import Foundation
import Synchronization
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Two real `cart-server` processes sharing a real PostgreSQL behind a real nginx, one of them
/// killed with SIGKILL again and again under load: every acknowledged action survives, and no
/// cart ever has two writers.
///
/// Needs `SPOOL_POSTGRES_URL` (`.ci/postgres start`), nginx and a built `cart-server`; without
/// them the suite is disabled, with the reason, except under CI (`CI` set), where it fails.
@Suite(
  .enabled(if: ClusterRequirements.enabled, ClusterRequirements.disabledReason),
  .timeLimit(.minutes(10)))
struct ClusterTests {
  /// What the load acknowledged: each SKU added once, with quantity 1, to one cart.
  final class Ledger: Sendable {
    let acknowledged = Mutex<[String: Set<String>]>([:])
    let refused = Mutex<[Int: Int]>([:])
    /// Set when the load must stop.
    let stopped = Atomic<Bool>(false)

    func acknowledge(cart: String, sku: String) {
      acknowledged.withLock { _ = $0[cart, default: []].insert(sku) }
    }

    func refuse(status: Int) { refused.withLock { $0[status, default: 0] += 1 } }

    var count: Int { acknowledged.withLock { $0.values.reduce(0) { $0 + $1.count } } }
  }

  struct Cart: Decodable {
    var items: [String: Int]
  }

  @Test func killingOneOfTwoProcessesTenTimesLosesNoAcknowledgedAction() async throws {
    let environment = try ClusterRequirements.environment.get()
    let cluster = try Cluster(environment: environment, nodes: 2, idleSeconds: 1)
    defer { cluster.remove() }
    do {
      try await cluster.start()
      try await Self.run(cluster)
      await cluster.stop()
    } catch {
      await cluster.stop()
      Issue.record("\(error)\n\(cluster.logs())")
    }
  }

  static func run(_ cluster: Cluster) async throws {
    let ledger = Ledger()
    let session = Self.session()
    let base = "http://127.0.0.1:\(cluster.port)"
    let carts = (0..<24).map { "k\($0)" }

    // Eight clients adding items through nginx until told to stop.
    let load = Task {
      await withTaskGroup(of: Void.self) { group in
        for worker in 0..<8 {
          group.addTask {
            var generator = SystemRandomNumberGenerator()
            var sequence = 0
            while !ledger.stopped.load(ordering: .relaxed) {
              sequence += 1
              let cart = carts.randomElement(using: &generator)!
              let sku = "w\(worker)-\(sequence)"
              let status = await Self.add(
                session, "\(base)/carts/\(cart)/items", sku: sku)
              if status == 200 {
                ledger.acknowledge(cart: cart, sku: sku)
              } else {
                ledger.refuse(status: status)
              }
            }
          }
        }
      }
    }

    // Ten kills at random moments, alternating between the processes, each restarted at once.
    // At least 1.5 s apart: nginx keeps a process it saw fail out of its upstream for a second
    // (`fail_timeout=1s`), and two kills closer than that leave it no process to route to.
    var generator = SystemRandomNumberGenerator()
    for round in 0..<10 {
      try await Task.sleep(for: .milliseconds(Int.random(in: 1_500...3_000, using: &generator)))
      let victim = round % 2
      try await cluster.kill(victim)
      try await cluster.startNode(victim)
    }
    try await Task.sleep(for: .milliseconds(500))
    ledger.stopped.store(true, ordering: .relaxed)
    await load.value

    let acknowledged = ledger.acknowledged.withLock { $0 }
    #expect(ledger.count > 0, "the load acknowledged nothing: \(ledger.refused.withLock { $0 })")

    // Every acknowledged item is in its cart, read through nginx from whichever process owns it.
    var lost: [String] = []
    for cart in carts {
      let items = try await Self.items(of: cart, session, base)
      for sku in acknowledged[cart, default: []] where items[sku] != 1 {
        lost.append("\(cart)/\(sku)")
      }
    }
    #expect(lost.isEmpty, "acknowledged and lost: \(lost.prefix(20)) (\(lost.count) in all)")

    // One writer at a time: along a cart's journal (snapshots and actions, by sequence
    // number), the epochs never go back, and every row's epoch is one that a process took.
    let rows = try cluster.sql(
      """
      SELECT entity, seq, epoch FROM (
        SELECT entity, seq, epoch, 0 AS kind FROM \(cluster.schema).spool_snapshots
        UNION ALL SELECT entity, seq, epoch, 1 FROM \(cluster.schema).spool_actions
      ) rows ORDER BY entity, seq, kind
      """)
    var latest: [String: Int] = [:]
    for row in rows {
      let (entity, epoch) = (row[0], Int(row[2]) ?? -1)
      #expect(
        epoch >= latest[entity, default: 0],
        "\(entity): seq \(row[1]) has epoch \(epoch), after epoch \(latest[entity] ?? 0)")
      latest[entity] = epoch
    }
    let unowned = try cluster.sql(
      """
      SELECT count(*) FROM \(cluster.schema).spool_actions a WHERE NOT EXISTS (
        SELECT 1 FROM \(cluster.schema).spool_epochs e
        WHERE e.entity = a.entity AND e.epoch = a.epoch)
      """)
    #expect(unowned == [["0"]], "rows written under an epoch no process took")
    // The kills made the other process take carts over.
    let epochs = try cluster.sql(
      "SELECT count(*) - count(DISTINCT entity) FROM \(cluster.schema).spool_epochs")
    let takeOvers = Int(epochs.first?.first ?? "") ?? 0
    #expect(takeOvers > 0, "no cart was ever taken over")
    print(
      "ClusterTests: \(ledger.count) acknowledged adds, \(lost.count) lost, \(takeOvers) "
        + "take-overs, unacknowledged answers by status \(ledger.refused.withLock { $0 })")
  }

  /// The items of `cart`, read through nginx; retried while no process answers (nginx keeps a
  /// process it saw fail out of its upstream for a second), for at most 60 s.
  static func items(
    of cart: String, _ session: URLSession, _ base: String
  ) async throws -> [String: Int] {
    var last = 0
    for _ in 0..<120 {
      let (data, response) = try await session.data(from: URL(string: "\(base)/carts/\(cart)")!)
      last = (response as? HTTPURLResponse)?.statusCode ?? 0
      if last == 200 { return try JSONDecoder().decode(Cart.self, from: data).items }
      try await Task.sleep(for: .milliseconds(500))
    }
    throw Cluster.Failure("GET /carts/\(cart) still answered \(last) after 60 s")
  }

  /// Adds one `sku` to a cart; the HTTP status, or 0 when no answer came (a killed process).
  static func add(_ session: URLSession, _ url: String, sku: String) async -> Int {
    var request = URLRequest(url: URL(string: url)!)
    request.httpMethod = "POST"
    request.httpBody = Data(#"{"sku":"\#(sku)","quantity":1}"#.utf8)
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    do {
      let (_, response) = try await session.data(for: request)
      return (response as? HTTPURLResponse)?.statusCode ?? 0
    } catch {
      return 0
    }
  }

  static func session() -> URLSession {
    let configuration = URLSessionConfiguration.ephemeral
    // A hung process fails the request, not the test.
    configuration.timeoutIntervalForRequest = 30
    configuration.httpMaximumConnectionsPerHost = 16
    return URLSession(configuration: configuration)
  }
}

/// Whether the cluster tests can run here, and why not (read by `ClusterTests`' traits, so kept
/// outside the suite).
enum ClusterRequirements {
  static let environment = Cluster.Environment.find()
  static let enabled: Bool = {
    if case .success = environment { return true }
    return ProcessInfo.processInfo.environment["CI"] != nil
  }()
  static let disabledReason: Comment = {
    if case .failure(let missing) = environment { return Comment(rawValue: missing.description) }
    return ""
  }()
}

import SpoolCore
import SpoolBench
import SpoolIO
import SpoolProfiling

/// `echo`: ``EchoServerFeature`` serving ``connections`` client tasks over loopback; each
/// client sends a 64-byte message and waits for its echo, again and again.
///
/// Setup (not measured): the server listens, the clients connect, the store has accepted
/// them all. Teardown (not measured): the clients close, the store removes their rows and
/// stops accepting. The server is a store made as any user makes one (`Store(initialState:)`).
/// Baselines: `store-on-io-thread` (io_uring only), the same server with its store and effects
/// on the engine's event-loop thread
/// (``SpoolIO/Store/init(initialState:on:instrumentation:reducer:withDependencies:)``);
/// `spoolio-direct`, SpoolIO's own echo benchmark on the same engine,
/// with the same connections and no store, the floor of the I/O path. (A `blocking-io` echo
/// inside `.run` would park every cooperative thread in `recv` with 64 connections on 2 cores
/// and never finish, so it is not measured.) One unit is one round trip.
enum EchoWorkload {
  static let connections = 64
  static let messageSize = 64

  static let workload = Workload(
    name: "echo",
    summary: "TCP echo server; connections are child features; clients over loopback",
    defaultActions: 32_000
  ) { run in
    let engine = IOEngine.shared
    let roundTrips = max(1, run.actions / connections)
    let spool = try await run.spool(EchoServerFeature.Action.self) { recorder in
      try await serve(
        run, "spool", engine: engine, onIOThread: false, roundTrips: roundTrips,
        instrumentation: recorder)
    }
    var baselines: [Measurement] = []
    if engine.backend == .ioUring {
      run.progress.begin(run.label("store-on-io-thread"), total: roundTrips * connections)
      baselines.append(
        try await serve(
          run, "store-on-io-thread", engine: engine, onIOThread: true, roundTrips: roundTrips,
          instrumentation: nil))
    }
    run.progress.begin(run.label("spoolio-direct"), total: roundTrips * connections)
    let direct = try await IOBenchmarks.tcpEcho(
      engine: engine, connections: connections, roundTrips: roundTrips,
      messageSize: messageSize)
    let directMeasurement = Measurement(
      name: "spoolio-direct", actions: direct.operations,
      seconds: Double(direct.elapsedNanoseconds) / 1e9)
    baselines.append(directMeasurement)
    return [
      run.report(
        spool, baselines: baselines,
        parameters: [
          "connections": String(connections), "messageBytes": String(messageSize),
          "roundTripsPerConnection": String(roundTrips),
        ],
        ioBackend: engine.backend.rawValue)
    ]
  }

  /// Starts a server (its store on `engine`'s thread when `onIOThread`), measures
  /// `roundTrips` echoes per connection, stops it and checks it.
  static func serve(
    _ run: WorkloadRun, _ name: String, engine: IOEngine, onIOThread: Bool, roundTrips: Int,
    instrumentation: LatencyRecorder<EchoServerFeature.Action>?
  ) async throws -> Measurement {
    let label = run.label(name)
    let server = try await EchoServer.start(
      connections: connections, engine: engine, onIOThread: onIOThread,
      instrumentation: instrumentation, label: label)
    let message = [UInt8](repeating: 0x5A, count: messageSize)
    let result = try await Measurement.time(name, actions: connections * roundTrips) {
      try await withThrowingTaskGroup(of: Void.self) { group in
        for client in server.clients {
          group.addTask {
            for trip in 0..<roundTrips {
              try await EchoServer.roundTrip(client, message, label: label)
              if trip & 63 == 63 { run.progress.advance(by: 64) }
            }
          }
        }
        try await group.waitForAll()
      }
    }
    try await server.stop(expectingBytes: connections * roundTrips * messageSize)
    return result
  }

  /// Polls `condition` every millisecond, for setup and teardown only; gives up after 30 s.
  static func waitUntil(
    _ label: String, _ what: String, _ condition: () async -> Bool
  ) async throws {
    let deadline = SpoolTime.now() + 30_000_000_000
    while await !condition() {
      try check(SpoolTime.now() < deadline, label, "timed out waiting until \(what)")
      try await Task.sleep(for: .milliseconds(1))
    }
  }
}

/// The echo server store of `echo` (and of the soak), on a loopback listener, with its clients.
struct EchoServer {
  let store: Store<EchoServerFeature.State, EchoServerFeature.Action>
  let listener: TCPListener
  let clients: [TCPSocket]
  /// The measurement's label, for errors.
  let label: String

  /// Starts the server's store (on `engine`'s thread when `onIOThread`) and connects
  /// `connections` clients; returns when the server has accepted them all.
  static func start(
    connections: Int, engine: IOEngine, onIOThread: Bool = false,
    instrumentation: (any StoreInstrumentation<EchoServerFeature.Action>)?, label: String
  ) async throws -> EchoServer {
    let listener = try await NetworkClient.live(on: engine).listen("127.0.0.1", 0)
    let feature = EchoServerFeature(listener: listener)
    let store =
      if onIOThread {
        Store(initialState: EchoServerFeature.State(), on: engine, instrumentation: instrumentation) {
          feature
        }
      } else {
        Store(initialState: EchoServerFeature.State(), instrumentation: instrumentation) {
          feature
        }
      }
    store.enqueue(.start)
    var clients: [TCPSocket] = []
    for _ in 0..<connections {
      clients.append(
        try await TCPSocket.connect(host: "127.0.0.1", port: listener.port, on: engine))
    }
    try await EchoWorkload.waitUntil(label, "the server accepted every client") {
      await store.state.accepted == connections
    }
    return EchoServer(store: store, listener: listener, clients: clients, label: label)
  }

  /// Sends `message` on `client` and reads its echo back, whole.
  static func roundTrip(_ client: TCPSocket, _ message: [UInt8], label: String) async throws {
    try await client.send(message)
    var received = 0
    while received < message.count {
      let bytes = try await client.receive(upTo: message.count - received)
      try check(!bytes.isEmpty, label, "the server closed a connection early")
      received += bytes.count
    }
  }

  /// Closes the clients, waits for the server to see it, stops the server and checks that it
  /// echoed `expectingBytes` bytes and left no connection row and no effect behind.
  func stop(expectingBytes expected: Int) async throws {
    for client in clients { try await client.close() }
    let store = self.store
    let connections = clients.count
    try await EchoWorkload.waitUntil(label, "the server saw every client close") {
      await store.state.closed == connections
    }
    store.enqueue(.stop)
    await store.finish()
    try await listener.close()
    let state = await store.state
    try check(
      state.bytesEchoed == expected, label,
      "echoed \(state.bytesEchoed) bytes, expected \(expected)")
    try check(state.connections.isEmpty, label, "\(state.connections.count) rows left")
    try check(store.runningEffectCount == 0, label, "effects still running after finish()")
  }
}

import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Real `cart-server` processes (`--backend postgres`) sharing one PostgreSQL schema, behind a
/// real nginx configured from `cluster/nginx.conf.template`, all on 127.0.0.1.
///
/// Every wait is bounded (a process that does not listen within 60 s fails the test), and
/// ``stop()`` ends every process it started.
final class Cluster {
  /// What a test needs: PostgreSQL's URL, nginx, and the built `cart-server`.
  struct Environment {
    var postgresURL: String
    var nginx: String
    var server: String

    /// The environment, or why the cluster tests cannot run here.
    static func find() -> Result<Environment, Missing> {
      let variables = ProcessInfo.processInfo.environment
      guard let url = variables["SPOOL_POSTGRES_URL"] else {
        return .failure(
          Missing(
            "SPOOL_POSTGRES_URL is not set (start a server with `.ci/postgres start` from the "
              + "repository's root and export the URL it prints)"))
      }
      guard let nginx = executable("nginx", in: ["/usr/sbin", "/usr/bin"]) else {
        return .failure(Missing("nginx is missing (apt-get install -y nginx)"))
      }
      // `swift build --build-tests` (and `swift test`) builds the executable next to the tests.
      let folder = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        .deletingLastPathComponent()
      let server = folder.appendingPathComponent("cart-server").path
      guard FileManager.default.isExecutableFile(atPath: server) else {
        return .failure(Missing("no cart-server at \(server): run `swift build` first"))
      }
      return .success(Environment(postgresURL: url, nginx: nginx, server: server))
    }

    static func executable(_ name: String, in folders: [String]) -> String? {
      let path = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
      for folder in path.map(String.init) + folders {
        let candidate = "\(folder)/\(name)"
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
      }
      return nil
    }
  }

  struct Missing: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
  }

  struct Failure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
  }

  let environment: Environment
  let schema: String
  let folder: URL
  /// Each process's port; nginx's is ``port``.
  let nodePorts: [Int]
  let port: Int
  /// `--idle-seconds` of every process.
  let idleSeconds: Int
  private(set) var nodes: [Process?]
  private var nginx: Process?

  init(environment: Environment, nodes count: Int, idleSeconds: Int) throws {
    self.environment = environment
    schema = "cart_cluster_\(UInt32.random(in: 0...UInt32.max))"
    folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("spool-cluster-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    var ports: [Int] = []
    for _ in 0...count { ports.append(try Self.freePort()) }
    port = ports[0]
    nodePorts = Array(ports[1...])
    nodes = Array(repeating: nil, count: count)
    self.idleSeconds = idleSeconds
  }

  /// Starts every process and nginx, and waits until all of them listen.
  func start() async throws {
    for index in nodePorts.indices { try await startNode(index) }
    let template = URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("cluster/nginx.conf.template")
    let servers = nodePorts.map { "server 127.0.0.1:\($0) max_fails=1 fail_timeout=1s;" }
    let configuration = try String(contentsOf: template, encoding: .utf8)
      .replacingOccurrences(of: "@PREFIX@", with: folder.path)
      .replacingOccurrences(of: "@LISTEN@", with: "127.0.0.1:\(port)")
      .replacingOccurrences(of: "@NODES@", with: servers.joined(separator: " "))
    let path = folder.appendingPathComponent("nginx.conf")
    try configuration.write(to: path, atomically: true, encoding: .utf8)
    nginx = try launch(
      environment.nginx, ["-p", folder.path, "-c", path.path], log: "nginx.out")
    try await waitUntilListening(port, name: "nginx")
  }

  /// Starts process `index` (again, after a kill) and waits until it listens.
  func startNode(_ index: Int) async throws {
    let port = nodePorts[index]
    nodes[index] = try launch(
      environment.server,
      [
        "--backend", "postgres", "--postgres-url", environment.postgresURL,
        "--postgres-schema", schema, "--port", "\(port)", "--node-address", "127.0.0.1:\(port)",
        "--idle-seconds", "\(idleSeconds)", "--log-level", "warning",
      ],
      log: "node\(index).out")
    try await waitUntilListening(port, name: "cart-server \(index)")
  }

  /// Sends SIGKILL to process `index` and waits until it is gone.
  func kill(_ index: Int) async throws {
    guard let process = nodes[index] else { return }
    Glibc.kill(process.processIdentifier, SIGKILL)
    try await waitUntilExited(process, name: "cart-server \(index)")
    nodes[index] = nil
  }

  /// Stops nginx and shuts every process down (SIGTERM: gracefully, snapshots written); kills
  /// what has not exited 30 s later. Removes the folder; the schema stays for ``sql(_:)``.
  func stop() async {
    for process in [nginx] + nodes {
      guard let process, process.isRunning else { continue }
      process.terminate()
      do {
        try await waitUntilExited(process, name: "process", seconds: 30)
      } catch {
        Glibc.kill(process.processIdentifier, SIGKILL)
      }
    }
    nginx = nil
    nodes = nodes.map { _ in nil }
  }

  /// What nginx and the processes printed, for a failure's message.
  func logs() -> String {
    let names = ["nginx.out", "error.log"] + nodePorts.indices.map { "node\($0).out" }
    return names.map { name in
      let text = (try? String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8))
      return "--- \(name)\n\(text ?? "(none)")"
    }.joined(separator: "\n")
  }

  /// Removes the folder and drops the schema.
  func remove() {
    _ = try? sql("DROP SCHEMA IF EXISTS \(schema) CASCADE")
    try? FileManager.default.removeItem(at: folder)
  }

  /// The rows `psql` prints for `query`, as fields split at `|`.
  func sql(_ query: String) throws -> [[String]] {
    guard let psql = Environment.executable("psql", in: ["/usr/bin"]) else {
      throw Failure("psql is missing (Debian's postgresql-client)")
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: psql)
    process.arguments = [
      environment.postgresURL, "-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", query,
    ]
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    let errorText = String(
      decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      throw Failure("psql failed (\(process.terminationStatus)) on \(query): \(errorText)")
    }
    return String(decoding: data, as: UTF8.self).split(separator: "\n").map {
      $0.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
    }
  }

  private func launch(_ executable: String, _ arguments: [String], log: String) throws -> Process {
    let path = folder.appendingPathComponent(log)
    _ = FileManager.default.createFile(atPath: path.path, contents: nil)
    let handle = try FileHandle(forWritingTo: path)
    handle.seekToEndOfFile()
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.standardOutput = handle
    process.standardError = handle
    try process.run()
    return process
  }

  private func waitUntilListening(_ port: Int, name: String) async throws {
    for _ in 0..<600 {
      if Self.accepts(port) { return }
      try await Task.sleep(for: .milliseconds(100))
    }
    throw Failure("\(name) did not listen on 127.0.0.1:\(port) within 60 s\n\(logs())")
  }

  private func waitUntilExited(_ process: Process, name: String, seconds: Int = 60) async throws {
    for _ in 0..<(seconds * 20) {
      if !process.isRunning { return }
      try await Task.sleep(for: .milliseconds(50))
    }
    throw Failure("\(name) did not exit within \(seconds) s")
  }

  /// Whether something accepts a TCP connection on 127.0.0.1:`port`.
  static func accepts(_ port: Int) -> Bool {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    var address = loopback(port)
    return withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
      }
    }
  }

  /// A port nothing listens on now: the system's pick for a socket bound to port 0.
  static func freePort() throws -> Int {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw Failure("socket() failed: errno \(errno)") }
    defer { close(descriptor) }
    var address = loopback(0)
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard bound == 0 else { throw Failure("bind() failed: errno \(errno)") }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let named = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        getsockname(descriptor, $0, &length)
      }
    }
    guard named == 0 else { throw Failure("getsockname() failed: errno \(errno)") }
    return Int(UInt16(bigEndian: address.sin_port))
  }

  private static func loopback(_ port: Int) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    return address
  }
}

/// A small TCP client and server for effects, as a dependency.
///
/// The live value (in `SpoolIO`) runs on the I/O engine: connecting, accepting, receiving and
/// sending suspend the effect without blocking a cooperative thread, and cancelling the effect
/// cancels the operation in the kernel. The test value fails the test when an endpoint is used
/// without being overridden.
///
/// ```swift
/// @Dependency(\.network) var network
///
/// return .run { send in
///   let connection = try await network.connect("127.0.0.1", 7)
///   try await connection.send(Array("ping".utf8))
///   let reply = try await connection.receive(4096)
///   try await connection.close()
///   await send(.replied(reply))
/// }
/// ```
public struct NetworkClient: Sendable {
  /// Opens a TCP connection to an IPv4 address (`"127.0.0.1"`) and port.
  public var connect: @Sendable (_ host: String, _ port: UInt16) async throws -> TCPConnection

  /// Listens for TCP connections on an IPv4 address and port; port 0 picks a free port, which
  /// the returned listener reports.
  public var listen: @Sendable (_ host: String, _ port: UInt16) async throws -> TCPListener

  /// Creates a client from its endpoints.
  ///
  /// ```swift
  /// let offline = NetworkClient(
  ///   connect: { host, port in throw IOError(errno: 111, operation: "connect", target: .none) },
  ///   listen: { _, _ in throw IOError(errno: 98, operation: "bind", target: .none) }
  /// )
  /// ```
  public init(
    connect: @escaping @Sendable (_ host: String, _ port: UInt16) async throws -> TCPConnection,
    listen: @escaping @Sendable (_ host: String, _ port: UInt16) async throws -> TCPListener
  ) {
    self.connect = connect
    self.listen = listen
  }
}

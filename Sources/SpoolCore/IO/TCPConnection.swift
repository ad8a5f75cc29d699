/// One TCP connection, as endpoints an effect can call and a test can replace.
///
/// `receive` returns at most `maxCount` bytes and an empty array when the peer closed its side.
/// Call `close` once; a live connection dropped without it is closed when its socket is
/// released.
///
/// ```swift
/// let connection = try await network.connect("127.0.0.1", port)
/// try await connection.send(Array("hello".utf8))
/// let reply = try await connection.receive(5)
/// try await connection.close()
/// ```
public struct TCPConnection: Sendable {
  /// The descriptor of the live socket, or -1 for a test connection. For logging only.
  public var descriptor: Int32
  /// Sends all of the bytes.
  public var send: @Sendable (_ bytes: [UInt8]) async throws -> Void
  /// Receives up to `maxCount` bytes; an empty result means the peer closed the connection.
  /// The live value (SpoolIO's) refuses a negative `maxCount` with an `IOError` (`EINVAL`) and
  /// returns at most 16 MiB per call, whatever `maxCount` asks for.
  public var receive: @Sendable (_ maxCount: Int) async throws -> [UInt8]
  /// Closes the connection.
  public var close: @Sendable () async throws -> Void

  /// Creates a connection from its endpoints.
  ///
  /// ```swift
  /// let echo = TCPConnection(
  ///   send: { _ in }, receive: { _ in Array("pong".utf8) }, close: {}
  /// )
  /// ```
  public init(
    descriptor: Int32 = -1,
    send: @escaping @Sendable (_ bytes: [UInt8]) async throws -> Void,
    receive: @escaping @Sendable (_ maxCount: Int) async throws -> [UInt8],
    close: @escaping @Sendable () async throws -> Void
  ) {
    self.descriptor = descriptor
    self.send = send
    self.receive = receive
    self.close = close
  }
}

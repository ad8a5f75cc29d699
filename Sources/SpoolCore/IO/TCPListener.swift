/// A listening TCP socket, as endpoints an effect can call and a test can replace.
///
/// ```swift
/// let listener = try await network.listen("127.0.0.1", 0)
/// let connection = try await listener.accept()
/// let request = try await connection.receive(4096)
/// try await connection.send(request)
/// try await connection.close()
/// try await listener.close()
/// ```
public struct TCPListener: Sendable {
  /// The port the listener is bound to (the chosen one when it asked for port 0).
  public var port: UInt16
  /// Waits for the next incoming connection.
  public var accept: @Sendable () async throws -> TCPConnection
  /// Stops listening.
  public var close: @Sendable () async throws -> Void

  /// Creates a listener from its endpoints.
  ///
  /// ```swift
  /// let listener = TCPListener(port: 8080, accept: { try await nextConnection() }, close: {})
  /// ```
  public init(
    port: UInt16,
    accept: @escaping @Sendable () async throws -> TCPConnection,
    close: @escaping @Sendable () async throws -> Void
  ) {
    self.port = port
    self.accept = accept
    self.close = close
  }
}

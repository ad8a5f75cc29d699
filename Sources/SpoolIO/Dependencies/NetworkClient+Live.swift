import Dependencies
import SpoolCore

extension NetworkClient: DependencyKey {
  /// The client on the shared engine.
  ///
  /// ```swift
  /// @Dependency(\.network) var network  // this value, in a running app
  /// ```
  public static var liveValue: NetworkClient { .live(on: .shared) }

  /// A client whose sockets run on `engine`.
  ///
  /// ```swift
  /// let network = NetworkClient.live(on: try IOEngine(backend: .ioUring))
  /// let listener = try await network.listen("127.0.0.1", 0)
  /// ```
  public static func live(on engine: IOEngine) -> NetworkClient {
    NetworkClient(
      connect: { host, port in
        TCPConnection(try await TCPSocket.connect(host: host, port: port, on: engine))
      },
      listen: { host, port in
        let socket = try TCPSocket.listen(host: host, port: port, on: engine)
        return TCPListener(
          port: socket.localPort,
          accept: { TCPConnection(try await socket.accept()) },
          close: { try await socket.close() }
        )
      }
    )
  }
}

extension TCPConnection {
  /// The endpoints of a live socket.
  init(_ socket: TCPSocket) {
    self.init(
      descriptor: socket.descriptor,
      send: { try await socket.send($0) },
      receive: { try await socket.receive(upTo: $0) },
      close: { try await socket.close() }
    )
  }
}

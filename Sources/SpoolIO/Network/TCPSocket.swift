#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif
import SpoolCore
import Synchronization

/// A TCP socket (a connection or a listener) whose operations run on an ``IOEngine``.
///
/// Connecting, accepting, receiving and sending suspend the task without blocking a cooperative
/// thread; cancelling the task cancels the operation in the kernel and throws
/// `CancellationError`. Close the socket with ``close()``; one released without it is closed in
/// `deinit`.
///
/// ```swift
/// let listener = try TCPSocket.listen(host: "127.0.0.1", port: 0)
/// async let served: Void = {
///   let connection = try await listener.accept()
///   try await connection.send(try await connection.receive(upTo: 1024))
///   try await connection.close()
/// }()
/// let client = try await TCPSocket.connect(host: "127.0.0.1", port: listener.localPort)
/// try await client.send(Array("ping".utf8))
/// print(try await client.receive(upTo: 4))  // "ping"
/// try await served
/// ```
public final class TCPSocket: Sendable {
  /// The descriptor number, for logging. It stays the same after `close()`.
  public let descriptor: Int32
  let engine: IOEngine
  private let isClosed = Atomic<Bool>(false)

  init(descriptor: Int32, engine: IOEngine) {
    self.descriptor = descriptor
    self.engine = engine
  }

  deinit {
    if !isClosed.load(ordering: .acquiring) {
      engine.syscalls.close(descriptor, .resource)
    }
  }

  /// Opens a connection to an IPv4 `host` (`"127.0.0.1"`, `"localhost"`) and `port`.
  ///
  /// - Throws: `IOError` (`connect(127.0.0.1:9): Connection refused (ECONNREFUSED)`), or
  ///   `CancellationError`.
  ///
  /// ```swift
  /// let socket = try await TCPSocket.connect(host: "127.0.0.1", port: 6379)
  /// ```
  public static func connect(
    host: String, port: UInt16, on engine: IOEngine = .shared
  ) async throws -> TCPSocket {
    let address = try SocketAddress.ipv4(host, port)
    let socket = try makeSocket(engine: engine, target: .address("\(host):\(port)"))
    do {
      _ = try await engine.run(
        .connect(fd: socket.descriptor, address: address), target: .address("\(host):\(port)"))
      var one: Int32 = 1
      _ = try engine.immediate("setsockopt", target: .descriptor(socket.descriptor)) {
        setsockopt(socket.descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, 4)
      }
      return socket
    } catch {
      try? await socket.close()
      throw error
    }
  }

  /// Listens on an IPv4 `host` and `port`; port 0 picks a free one (see ``localPort``).
  ///
  /// Binding and listening never wait, so this function is synchronous.
  ///
  /// ```swift
  /// let listener = try TCPSocket.listen(host: "0.0.0.0", port: 8080)
  /// ```
  public static func listen(
    host: String, port: UInt16, backlog: Int32 = 512, on engine: IOEngine = .shared
  ) throws(IOError) -> TCPSocket {
    let address = try SocketAddress.ipv4(host, port)
    let target = IOError.Target.address("\(host):\(port)")
    let socket = try makeSocket(engine: engine, target: target)
    let fd = socket.descriptor
    var one: Int32 = 1
    _ = try engine.immediate("setsockopt", target: target) {
      setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, 4)
    }
    _ = try engine.immediate("bind", target: target) {
      bind(fd, address.pointer.assumingMemoryBound(to: sockaddr.self), socklen_t(address.count))
    }
    _ = try engine.immediate("listen", target: target) { Glibc.listen(fd, backlog) }
    return socket
  }

  private static func makeSocket(
    engine: IOEngine, target: @autoclosure () -> IOError.Target
  ) throws(IOError) -> TCPSocket {
    // Non-blocking: io_uring waits for readiness itself, and the thread backend polls.
    TCPSocket(descriptor: try engine.makeSocket(target: target()), engine: engine)
  }

  /// The local port (the one the kernel chose for a listener on port 0).
  ///
  /// ```swift
  /// let port = listener.localPort
  /// ```
  public var localPort: UInt16 {
    var address = sockaddr_in()
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let result = withUnsafeMutablePointer(to: &address) { address in
      address.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
        engine.syscalls.call("getsockname") { getsockname(descriptor, address, &length) }
      }
    }
    return result == 0 ? UInt16(bigEndian: address.sin_port) : 0
  }

  /// Waits for the next connection on a listening socket.
  ///
  /// ```swift
  /// let connection = try await listener.accept()
  /// ```
  public func accept() async throws -> TCPSocket {
    try checkOpen("accept")
    let fd = try await engine.run(.accept(fd: descriptor), target: .descriptor(descriptor))
    let accepted = TCPSocket(descriptor: Int32(fd), engine: engine)
    var one: Int32 = 1
    _ = try engine.immediate("setsockopt", target: .descriptor(accepted.descriptor)) {
      setsockopt(accepted.descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, 4)
    }
    return accepted
  }

  /// Receives up to `count` bytes; an empty result means the peer closed its side.
  ///
  /// Returns as soon as some bytes arrived, possibly fewer than `count` (a short receive): loop
  /// to collect a message of known length. While no byte is there it waits (would-block and
  /// interrupted calls are retried, never reported). One receive asks for at most 16 MiB, and
  /// allocates no more, whatever `count` says.
  ///
  /// - Parameter count: The most bytes to return; 0 returns none. Negative counts are refused.
  /// - Throws: `IOError` (`recv(fd 9): Connection reset by peer (ECONNRESET)`; `EINVAL` for a
  ///   negative `count`, on both backends), or `CancellationError` when the task is cancelled
  ///   while no data arrives.
  ///
  /// ```swift
  /// let request = try await connection.receive(upTo: 4096)
  /// ```
  public func receive(upTo count: Int) async throws -> [UInt8] {
    try checkOpen("recv")
    try IOLimits.checkCount(count, operation: "recv", target: .descriptor(descriptor))
    let count = min(count, IOLimits.maximumReadCount)
    let buffer = IOBuffer(count: count)
    let received = try await engine.run(
      .receive(fd: descriptor, buffer: buffer, count: count), target: .descriptor(descriptor))
    return buffer.bytes(count: received)
  }

  /// Sends all of `bytes`.
  ///
  /// After a short send (the socket buffer took part of them) it sends the rest, until every
  /// byte is sent; a full buffer is waited out, never reported.
  ///
  /// - Throws: `IOError` (`send(fd 9): Broken pipe (EPIPE)`), or `CancellationError`.
  ///
  /// ```swift
  /// try await connection.send(Array("HTTP/1.1 200 OK\r\n\r\n".utf8))
  /// ```
  public func send(_ bytes: [UInt8]) async throws {
    try checkOpen("send")
    let buffer = IOBuffer(copying: bytes)
    var sent = 0
    while sent < bytes.count {
      sent += try await engine.run(
        .send(fd: descriptor, buffer: buffer, start: sent, count: bytes.count - sent),
        target: .descriptor(descriptor))
    }
  }

  /// Closes the socket. A second call throws `EBADF`.
  ///
  /// ```swift
  /// try await connection.close()
  /// ```
  public func close() async throws {
    guard !isClosed.exchange(true, ordering: .acquiringAndReleasing) else {
      throw IOError(errno: EBADF, operation: "close", target: .descriptor(descriptor))
    }
    // Not cancellable: the descriptor is released whatever happens to the task.
    try await engine.close(descriptor)
  }

  private func checkOpen(_ operation: String) throws(IOError) {
    if isClosed.load(ordering: .acquiring) {
      throw IOError(errno: EBADF, operation: operation, target: .descriptor(descriptor))
    }
  }
}

import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A TCP relay on 127.0.0.1 between a node and PostgreSQL, which a test cuts and restores:
/// "the database is unreachable" for real, with no mock on either side. Examples/CartServer's
/// tests use this file too (a symbolic link: a package's test support cannot be a product).
///
/// While cut, every relayed connection is shut down in both directions (the node's reads and
/// writes fail; PostgreSQL sees its clients leave, and ends their sessions and their advisory
/// locks) and a new connection is accepted and closed at once (the node's connects fail).
/// Restored, new connections are relayed again. Blocking sockets, a thread per direction of a
/// connection: few connections, for a test.
final class LoopbackProxy: Sendable {
  struct SocketError: Error, CustomStringConvertible {
    var operation: String
    var errno: Int32
    var description: String { "\(operation) failed: \(String(cString: strerror(errno)))" }
  }

  private struct State {
    var relaying = true
    var stopped = false
    /// Descriptors of live relayed connections: only shut down, never closed, under the
    /// lock, so that a number reused by a later socket is never shut down by mistake (they are
    /// removed under the lock before they are closed).
    var sockets: Set<Int32> = []
  }

  /// The port the node connects to.
  let port: Int
  private let upstreamPort: Int
  private let listener: Int32
  private let state = Mutex(State())

  /// Listens on an ephemeral port of 127.0.0.1 and relays to 127.0.0.1:`upstreamPort`.
  init(upstreamPort: Int) throws {
    self.upstreamPort = upstreamPort
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw SocketError(operation: "socket", errno: errno) }
    var address = Self.loopback(port: 0)
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard bound == 0, listen(fd, 64) == 0 else {
      let error = SocketError(operation: "bind/listen", errno: errno)
      close(fd)
      throw error
    }
    var actual = sockaddr_in()
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &actual) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    listener = fd
    port = Int(UInt16(bigEndian: actual.sin_port))
    Thread.detachNewThread { [self] in acceptLoop() }
  }

  /// Cuts every relayed connection and refuses new ones until ``restore()``.
  func cut() {
    state.withLock { state in
      state.relaying = false
      for fd in state.sockets { shutdown(fd, Int32(SHUT_RDWR)) }
    }
  }

  /// Relays new connections again.
  func restore() {
    state.withLock { $0.relaying = true }
  }

  /// Cuts everything and stops listening.
  func stop() {
    cut()
    state.withLock { $0.stopped = true }
    // Wakes the acceptor out of `accept`; it closes the listener on its way out.
    shutdown(listener, Int32(SHUT_RDWR))
  }

  private static func loopback(port: UInt16) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return address
  }

  private func acceptLoop() {
    while true {
      let client = accept(listener, nil, nil)
      if client < 0 {
        if errno == EINTR { continue }
        break
      }
      let (relaying, stopped) = state.withLock { ($0.relaying, $0.stopped) }
      if stopped {
        close(client)
        break
      }
      guard relaying, let upstream = connectUpstream() else {
        close(client)
        continue
      }
      let registered = state.withLock { state in
        // A cut between the check above and here must reach this connection too.
        guard state.relaying else { return false }
        state.sockets.insert(client)
        state.sockets.insert(upstream)
        return true
      }
      guard registered else {
        close(client)
        close(upstream)
        continue
      }
      let pair = Pair(proxy: self, client: client, upstream: upstream)
      Thread.detachNewThread { pair.pump(from: client, to: upstream) }
      Thread.detachNewThread { pair.pump(from: upstream, to: client) }
    }
    close(listener)
  }

  private func connectUpstream() -> Int32? {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return nil }
    var address = Self.loopback(port: UInt16(upstreamPort))
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0 else {
      close(fd)
      return nil
    }
    return fd
  }

  /// Ends a connection: unregisters its descriptors, then closes them.
  fileprivate func end(_ client: Int32, _ upstream: Int32) {
    state.withLock { state in
      state.sockets.remove(client)
      state.sockets.remove(upstream)
    }
    close(client)
    close(upstream)
  }
}

/// One relayed connection: two pumps, the last one to finish closes both descriptors.
private final class Pair: Sendable {
  let proxy: LoopbackProxy
  let client: Int32
  let upstream: Int32
  private let running = Atomic<Int>(2)

  init(proxy: LoopbackProxy, client: Int32, upstream: Int32) {
    self.proxy = proxy
    self.client = client
    self.upstream = upstream
  }

  func pump(from source: Int32, to destination: Int32) {
    var buffer = [UInt8](repeating: 0, count: 16 * 1024)
    loop: while true {
      let count = buffer.withUnsafeMutableBytes { recv(source, $0.baseAddress, $0.count, 0) }
      if count < 0, errno == EINTR { continue }
      guard count > 0 else { break }
      var sent = 0
      while sent < count {
        let written = buffer.withUnsafeBytes {
          // MSG_NOSIGNAL: a peer gone must be an error here, not SIGPIPE for the test process.
          send(destination, $0.baseAddress! + sent, count - sent, Int32(MSG_NOSIGNAL))
        }
        if written < 0, errno == EINTR { continue }
        guard written > 0 else { break loop }
        sent += written
      }
    }
    // Either side ending ends the other direction too (the descriptors stay open until both
    // pumps are out of their calls).
    shutdown(client, Int32(SHUT_RDWR))
    shutdown(upstream, Int32(SHUT_RDWR))
    if running.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 {
      proxy.end(client, upstream)
    }
  }
}

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif
import SpoolCore

/// An IPv4 socket address, encoded for the kernel.
enum SocketAddress {
  /// `sockaddr_in` for `host:port`; `host` is a dotted IPv4 address or `localhost`.
  static func ipv4(_ host: String, _ port: UInt16) throws(IOError) -> IOBuffer {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    let name = host == "localhost" ? "127.0.0.1" : host
    guard inet_pton(AF_INET, name, &address.sin_addr) == 1 else {
      throw IOError(errno: EINVAL, operation: "inet_pton", target: .address("\(host):\(port)"))
    }
    return withUnsafeBytes(of: &address) { IOBuffer(copying: $0) }
  }
}

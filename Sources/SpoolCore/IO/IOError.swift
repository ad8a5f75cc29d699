#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A failure of the environment during an I/O operation: the errno, the operation, and the path
/// or descriptor it concerned.
///
/// Spool's I/O clients throw `IOError` for everything the operating system refuses (a missing
/// file, a reset connection, a closed descriptor). Cancellation is not an `IOError`: a cancelled
/// operation throws `CancellationError`. The description reads like a shell error:
///
/// ```swift
/// do {
///   _ = try await fileIO.readFile("/nope")
/// } catch let error as IOError {
///   print(error)  // open("/nope"): No such file or directory (ENOENT)
///   if error.errno == ENOENT { /* create it */ }
/// }
/// ```
public struct IOError: Error, Sendable, Hashable, CustomStringConvertible {
  /// What an operation was applied to.
  public enum Target: Sendable, Hashable {
    /// A path in the file system.
    case path(String)
    /// An open file or socket descriptor.
    case descriptor(Int32)
    /// A network address, as `host:port`.
    case address(String)
    /// Nothing in particular (setting up the I/O engine, for example).
    case none
  }

  /// The `errno` value the system reported.
  public var errno: Int32
  /// The operation that failed, named after its system call (`open`, `read`, `connect`, ...).
  public var operation: String
  /// What the operation was applied to.
  public var target: Target

  /// Creates an error for `operation` on `target` that failed with `errno`.
  ///
  /// ```swift
  /// throw IOError(errno: ENOENT, operation: "open", target: .path("/nope"))
  /// ```
  public init(errno: Int32, operation: String, target: Target) {
    self.errno = errno
    self.operation = operation
    self.target = target
  }

  /// The symbolic name of ``errno`` (`"ENOENT"`), or `"errno 123"` for an uncommon value.
  public var errnoName: String {
    IOError.errnoNames[errno] ?? "errno \(errno)"
  }

  /// `open("/nope"): No such file or directory (ENOENT)`.
  public var description: String {
    let subject: String
    switch target {
    case .path(let path): subject = "\"\(path)\""
    case .descriptor(let fd): subject = "fd \(fd)"
    case .address(let address): subject = address
    case .none: subject = ""
    }
    return "\(operation)(\(subject)): \(String(cString: strerror(errno))) (\(errnoName))"
  }

  private static let errnoNames: [Int32: String] = [
    EPERM: "EPERM", ENOENT: "ENOENT", EINTR: "EINTR", EIO: "EIO", EBADF: "EBADF",
    EAGAIN: "EAGAIN", ENOMEM: "ENOMEM", EACCES: "EACCES", EFAULT: "EFAULT", EBUSY: "EBUSY",
    EEXIST: "EEXIST", EXDEV: "EXDEV", ENOTDIR: "ENOTDIR", EISDIR: "EISDIR", EINVAL: "EINVAL",
    ENFILE: "ENFILE", EMFILE: "EMFILE", EFBIG: "EFBIG", ENOSPC: "ENOSPC", ESPIPE: "ESPIPE",
    EROFS: "EROFS", EPIPE: "EPIPE", ENAMETOOLONG: "ENAMETOOLONG", ENOSYS: "ENOSYS",
    ENOTEMPTY: "ENOTEMPTY", ELOOP: "ELOOP", ENOTSOCK: "ENOTSOCK", EOPNOTSUPP: "EOPNOTSUPP",
    EADDRINUSE: "EADDRINUSE", EADDRNOTAVAIL: "EADDRNOTAVAIL", ENETUNREACH: "ENETUNREACH",
    ECONNABORTED: "ECONNABORTED", ECONNRESET: "ECONNRESET", ENOTCONN: "ENOTCONN",
    ETIMEDOUT: "ETIMEDOUT", ECONNREFUSED: "ECONNREFUSED", EHOSTUNREACH: "EHOSTUNREACH",
    EALREADY: "EALREADY", EINPROGRESS: "EINPROGRESS", ECANCELED: "ECANCELED",
    ETIME: "ETIME",
  ]
}

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
  /// What an operation was applied to: a path, a descriptor, an address, or nothing.
  ///
  /// A struct rather than an enum, so that a later kind of target is not a breaking change:
  /// read it through ``path``, ``descriptor`` and ``address``, or compare it with `==`.
  ///
  /// ```swift
  /// if let path = error.target.path { print("failed on", path) }
  /// if error.target == .descriptor(fd) { close(fd) }
  /// ```
  public struct Target: Sendable, Hashable, CustomStringConvertible {
    private enum Kind: Sendable, Hashable {
      case path(String)
      case descriptor(Int32)
      case address(String)
      case none
    }

    private let kind: Kind

    private init(_ kind: Kind) { self.kind = kind }

    /// A path in the file system.
    ///
    /// ```swift
    /// IOError(errno: ENOENT, operation: "open", target: .path("/nope"))
    /// ```
    public static func path(_ path: String) -> Target { Target(.path(path)) }

    /// An open file or socket descriptor.
    ///
    /// ```swift
    /// IOError(errno: EBADF, operation: "read", target: .descriptor(fd))
    /// ```
    public static func descriptor(_ descriptor: Int32) -> Target {
      Target(.descriptor(descriptor))
    }

    /// A network address, as `host:port`.
    ///
    /// ```swift
    /// IOError(errno: ECONNREFUSED, operation: "connect", target: .address("127.0.0.1:8080"))
    /// ```
    public static func address(_ address: String) -> Target { Target(.address(address)) }

    /// Nothing in particular (setting up the I/O engine, for example).
    ///
    /// ```swift
    /// IOError(errno: ENOMEM, operation: "io_uring_setup", target: .none)
    /// ```
    public static let none = Target(.none)

    /// The path, when the target is one.
    public var path: String? {
      if case .path(let path) = kind { return path }
      return nil
    }

    /// The descriptor, when the target is one.
    public var descriptor: Int32? {
      if case .descriptor(let descriptor) = kind { return descriptor }
      return nil
    }

    /// The address (`host:port`), when the target is one.
    public var address: String? {
      if case .address(let address) = kind { return address }
      return nil
    }

    /// How the target reads in an error: `"/nope"`, `fd 7`, `127.0.0.1:80`, or nothing.
    public var description: String {
      switch kind {
      case .path(let path): "\"\(path)\""
      case .descriptor(let descriptor): "fd \(descriptor)"
      case .address(let address): address
      case .none: ""
      }
    }
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
    let subject = target.description
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

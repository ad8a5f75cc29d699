/// Which implementation an ``IOEngine`` runs its operations on.
///
/// ```swift
/// let engine = try IOEngine(backend: .threads)
/// print(engine.backend)  // threads
/// ```
public enum IOBackend: String, Sendable, Hashable, CustomStringConvertible {
  /// A ring owned by an event-loop thread; operations are batched into `io_uring_enter` calls.
  case ioUring = "io_uring"
  /// Blocking system calls on a pool of threads: the fallback where io_uring is unavailable.
  case threads

  /// How an engine picks its backend.
  ///
  /// ```swift
  /// let engine = try IOEngine(backend: .automatic)  // io_uring when the kernel allows it
  /// ```
  public enum Preference: Sendable, Hashable {
    /// io_uring when it can be set up, the thread pool otherwise; `SPOOL_IO_BACKEND=threads`
    /// in the environment forces the thread pool.
    case automatic
    /// io_uring or an error.
    case ioUring
    /// The thread pool.
    case threads
  }

  public var description: String { rawValue }
}

extension IOBackend.Preference {
  /// The values `SPOOL_IO_BACKEND` may take: `threads` forces the thread pool; `io_uring` and
  /// `automatic` (like no value at all) leave the choice to the engine.
  static let environmentValues = ["threads", "io_uring", "automatic"]

  /// The preference after applying `SPOOL_IO_BACKEND` (`environment`): `threads` turns
  /// `.automatic` into `.threads`; explicit choices stay.
  func resolved(environment: String?) -> IOBackend.Preference {
    self == .automatic && environment == "threads" ? .threads : self
  }

  /// What is wrong with a `SPOOL_IO_BACKEND` value, in one line; `nil` for a valid one.
  ///
  /// An unknown value (a typo such as `thread`) would otherwise quietly mean the default.
  static func environmentProblem(_ environment: String?) -> String? {
    guard let environment, !environment.isEmpty, !environmentValues.contains(environment)
    else { return nil }
    return "SPOOL_IO_BACKEND=\(environment) is not one of "
      + environmentValues.joined(separator: ", ") + "; using the automatic choice"
  }
}

import Foundation

/// Where and how a report was made: machine, kernel, toolchain, build and commit.
///
/// ```swift
/// let environment = ReportEnvironment.current()
/// print(environment.hostName, environment.cores, environment.kernel)
/// ```
public struct ReportEnvironment: Codable, Sendable, Equatable {
  /// The host name (`gethostname`).
  public var hostName: String
  /// Online processors (`sysconf(_SC_NPROCESSORS_ONLN)`).
  public var cores: Int
  /// Kernel name and release, `Linux 6.8.0-45-generic`.
  public var kernel: String
  /// The Swift compiler that built Spool, `6.3.1`.
  public var swiftVersion: String
  /// `debug` or `release`.
  public var buildConfiguration: String
  /// `git rev-parse HEAD` of the working directory, when it is a git checkout.
  public var gitCommit: String?
  /// When the report was made, to the second (JSON keeps ISO 8601 seconds).
  public var date: Date

  /// Creates an environment from known values; `date` is truncated to whole seconds so that
  /// the model reads back from JSON unchanged.
  ///
  /// ```swift
  /// let environment = ReportEnvironment(
  ///   hostName: "ci-1", cores: 2, kernel: "Linux 6.8.0", swiftVersion: "6.3.1",
  ///   buildConfiguration: "release", gitCommit: nil, date: Date()
  /// )
  /// ```
  public init(
    hostName: String, cores: Int, kernel: String, swiftVersion: String,
    buildConfiguration: String, gitCommit: String?, date: Date
  ) {
    self.hostName = hostName
    self.cores = cores
    self.kernel = kernel
    self.swiftVersion = swiftVersion
    self.buildConfiguration = buildConfiguration
    self.gitCommit = gitCommit
    self.date = Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
  }
}

import Foundation

/// Where and how a report was made: machine, kernel, toolchain, build and commit.
///
/// The processor and clock fields (``cpuModel``, ``allowedCores``,
/// ``crossCoreRoundTripNanoseconds``, ``timeSource``, ``clockReadNanoseconds``) are optional:
/// reports written before they existed have none of them, and the round trip and the clock
/// read are only measured when asked for (see
/// ``current(date:measuringCrossCoreLatency:measuringClockReads:)``).
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
  /// When the report was made, to the second (JSON keeps ISO 8601 seconds); for
  /// `spool bench`, when the run started.
  public var date: Date
  /// The processor: the first `model name` of `/proc/cpuinfo`, `AMD EPYC 7B13`; `nil` when
  /// unreadable (or on processors whose kernel prints no such line) and in older reports.
  public var cpuModel: String?
  /// CPUs the process may run on: those of its affinity mask (`sched_getaffinity`), fewer than
  /// ``cores`` under `taskset` or a container's CPU set; `nil` in older reports.
  public var allowedCores: Int?
  /// The median time for one cache line to go to another core and back, in nanoseconds,
  /// measured by two threads pinned to two allowed CPUs; `nil` when not measured, when fewer
  /// than two CPUs are allowed, and in older reports.
  public var crossCoreRoundTripNanoseconds: Double?
  /// Where the instrumentation's timestamps came from: `SpoolTime.Source`'s raw value,
  /// `counter` (the processor's counter, the TSC on x86-64) or `monotonicClock`
  /// (`clock_gettime(CLOCK_MONOTONIC)`); `nil` in older reports.
  public var timeSource: String?
  /// What one `SpoolTime.now()` cost, in nanoseconds: the median of a few runs of reads back
  /// to back. An instrumented store pays it twice per timed action. `nil` when not measured
  /// and in older reports.
  public var clockReadNanoseconds: Double?

  /// Creates an environment from known values; `date` is truncated to whole seconds so that
  /// the model reads back from JSON unchanged.
  ///
  /// ```swift
  /// let environment = ReportEnvironment(
  ///   hostName: "ci-1", cores: 2, kernel: "Linux 6.8.0", swiftVersion: "6.3.1",
  ///   buildConfiguration: "release", gitCommit: nil, date: Date(),
  ///   cpuModel: "AMD EPYC 7B13", allowedCores: 2, crossCoreRoundTripNanoseconds: 180,
  ///   timeSource: "counter", clockReadNanoseconds: 11.2
  /// )
  /// ```
  public init(
    hostName: String, cores: Int, kernel: String, swiftVersion: String,
    buildConfiguration: String, gitCommit: String?, date: Date, cpuModel: String? = nil,
    allowedCores: Int? = nil, crossCoreRoundTripNanoseconds: Double? = nil,
    timeSource: String? = nil, clockReadNanoseconds: Double? = nil
  ) {
    self.hostName = hostName
    self.cores = cores
    self.kernel = kernel
    self.swiftVersion = swiftVersion
    self.buildConfiguration = buildConfiguration
    self.gitCommit = gitCommit
    self.date = Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
    self.cpuModel = cpuModel
    self.allowedCores = allowedCores
    self.crossCoreRoundTripNanoseconds = crossCoreRoundTripNanoseconds
    self.timeSource = timeSource
    self.clockReadNanoseconds = clockReadNanoseconds
  }
}

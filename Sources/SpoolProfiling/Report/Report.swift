import Foundation

/// A latency report: where a run was made and what each of its workloads measured.
///
/// `Report` is the model of the JSON files that `spool bench --format json` prints and that
/// `spool report` and `spool compare` read. JSON is the source of truth; the table, the Chrome
/// trace and the SVG plot are views of it (see ``ReportFormat``). The file carries
/// ``schemaVersion``; a reader refuses any version but ``currentSchemaVersion``.
///
/// ```swift
/// let recorder = LatencyRecorder<Counter.Action>()
/// // … run a store created with `instrumentation: recorder` …
/// let workload = WorkloadReport(
///   name: "counter", parameters: ["actions": "1000000"],
///   durationSeconds: elapsed, recording: recorder.recording()
/// )
/// let report = Report(environment: .current(), workloads: [workload])
/// try report.write(to: "Profiles/counter.json", format: .json)
/// ```
public struct Report: Codable, Sendable, Equatable {
  /// The schema version this build of Spool writes and reads.
  public static let currentSchemaVersion = 1

  /// The schema version of the file; ``currentSchemaVersion`` for reports made here.
  public var schemaVersion: Int
  /// The machine, toolchain and commit the workloads ran on.
  public var environment: ReportEnvironment
  /// One entry per workload, in the order they ran.
  public var workloads: [WorkloadReport]

  /// Creates a report of the current schema version.
  ///
  /// ```swift
  /// let report = Report(environment: .current(), workloads: [workload])
  /// ```
  public init(environment: ReportEnvironment, workloads: [WorkloadReport]) {
    self.schemaVersion = Self.currentSchemaVersion
    self.environment = environment
    self.workloads = workloads
  }
}

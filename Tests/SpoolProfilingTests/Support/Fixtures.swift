import Foundation
import SpoolProfiling

/// Reports and files the tests share.
enum Fixtures {
  static let environment = ReportEnvironment(
    hostName: "test-host", cores: 2, kernel: "Linux 6.8.0-test", swiftVersion: "6.3.1",
    buildConfiguration: "release", gitCommit: String(repeating: "ab", count: 20),
    date: Date(timeIntervalSince1970: 1_750_000_000), cpuModel: "Test CPU @ 3.00GHz",
    allowedCores: 2, crossCoreRoundTripNanoseconds: 180.5, timeSource: "counter",
    clockReadNanoseconds: 11.4)

  static func summary(p50: UInt64, p99: UInt64) -> LatencySummary {
    LatencySummary(
      count: 100, meanNanoseconds: Double(p50) * 1.1, p50Nanoseconds: p50,
      p90Nanoseconds: (p50 + p99) / 2, p99Nanoseconds: p99, p999Nanoseconds: p99 * 2,
      maxNanoseconds: p99 * 3,
      distribution: [
        PercentilePoint(percentile: 0, nanoseconds: p50 / 2),
        PercentilePoint(percentile: 50, nanoseconds: p50),
        PercentilePoint(percentile: 99, nanoseconds: p99),
        PercentilePoint(percentile: 100, nanoseconds: p99 * 3),
      ])
  }

  static func workload(
    name: String = "counter", throughput: Double = 1_000_000, reduceP50: UInt64 = 40,
    reduceP99: UInt64 = 90
  ) -> WorkloadReport {
    WorkloadReport(
      name: name, parameters: ["actions": "1000000", "producers": "2"], actions: 1_000_000,
      durationSeconds: 1_000_000 / throughput, peakRSSBytes: 24 << 20, ioBackend: "io_uring",
      baselines: [
        Baseline(name: "raw-loop", throughputPerSecond: 400_000_000),
        Baseline(name: "plain-actor", throughputPerSecond: 12_000_000),
      ],
      actionCases: [
        ActionCaseReport(
          label: "child(.row(.toggle))", count: 10, queueWait: summary(p50: 300, p99: 2_000),
          reduce: summary(p50: 60, p99: 200)),
        ActionCaseReport(
          label: "incrementButtonTapped", count: 999_990,
          queueWait: summary(p50: 500, p99: 9_000),
          reduce: summary(p50: reduceP50, p99: reduceP99)),
      ],
      effects: [
        EffectReport(
          label: "load", started: 5, finished: 3, cancelled: 1, failed: 1,
          lifetime: summary(p50: 10_000, p99: 90_000))
      ],
      trace: [
        TraceInterval(
          name: "incrementButtonTapped", track: "store", kind: .queueWait,
          startNanoseconds: 1_000, durationNanoseconds: 500),
        TraceInterval(
          name: "incrementButtonTapped", track: "store", kind: .reduce,
          startNanoseconds: 1_500, durationNanoseconds: 40),
        TraceInterval(
          name: "load (finished)", track: "effects", kind: .effect, startNanoseconds: 1_600,
          durationNanoseconds: 10_000),
        TraceInterval(
          name: "parse", track: "thread 1", kind: .interval, startNanoseconds: 2_000,
          durationNanoseconds: 700),
        TraceInterval(
          name: "checkpoint", track: "thread 1", kind: .event, startNanoseconds: 2_100,
          durationNanoseconds: 0),
      ])
  }

  static func report(_ workloads: [WorkloadReport] = [workload()]) -> Report {
    Report(environment: environment, workloads: workloads)
  }
}

/// A fresh directory under the system's temporary directory, removed by `remove()`.
struct TemporaryDirectory {
  let path: String

  init() throws {
    var template = Array("\(NSTemporaryDirectory())/spool-profiling-XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
    path = String(cString: made)
  }

  func file(_ name: String) -> String { "\(path)/\(name)" }

  func write(_ text: String, to name: String) throws -> String {
    let path = file(name)
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    return path
  }

  func remove() { try? FileManager.default.removeItem(atPath: path) }
}

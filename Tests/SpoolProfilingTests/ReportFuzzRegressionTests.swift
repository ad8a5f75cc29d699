import Testing

@testable import SpoolProfiling

/// Inputs the report fuzzer (``ReportFuzzTests``) found to crash, kept as regression tests.
/// Each input is the smallest report that showed the crash.
@Suite struct ReportFuzzRegressionTests {
  /// `spool report --format svg` trapped ("Double value cannot be converted to UInt64") on a
  /// latency above 1e19 ns: the plot's top grid line, 1e20 ns, was converted to UInt64.
  /// Found by `ReportFuzzTests` with its default seed.
  static let latencyAbove1e19 = #"""
    {"schemaVersion": 1,
     "environment": {"hostName": "h", "cores": 1, "kernel": "k", "swiftVersion": "6",
                     "buildConfiguration": "debug", "date": "2026-01-01T00:00:00Z"},
     "workloads": [{"name": "w", "parameters": {}, "actions": 1, "durationSeconds": 1,
       "throughputPerSecond": 1, "baselines": [], "effects": [], "trace": [],
       "actionCases": [{"label": "a", "count": 1,
         "queueWait": {"count": 1, "meanNanoseconds": 1, "p50Nanoseconds": 1,
           "p90Nanoseconds": 1, "p99Nanoseconds": 1, "p999Nanoseconds": 1,
           "maxNanoseconds": 1, "distribution": []},
         "reduce": {"count": 1, "meanNanoseconds": 1, "p50Nanoseconds": 1,
           "p90Nanoseconds": 1, "p99Nanoseconds": 1, "p999Nanoseconds": 1,
           "maxNanoseconds": 18446744073709551615,
           "distribution": [{"percentile": 50, "nanoseconds": 18446744073709551615}]}}]}]}
    """#

  @Test func aLatencyAbove1e19NanosecondsPlots() throws {
    let report = try Report.decode(Array(Self.latencyAbove1e19.utf8), path: "regression.json")
    let svg = String(decoding: report.rendered(as: .svg), as: UTF8.self)
    #expect(svg.contains("<polyline"))
    // Every writer takes it.
    ReportFuzzTests.exercise(report, context: "latencyAbove1e19")
  }
}

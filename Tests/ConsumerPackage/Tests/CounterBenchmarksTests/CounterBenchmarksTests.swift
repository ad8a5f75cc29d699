import Foundation
import SpoolProfiling
import Testing

@testable import CounterBenchmarks

/// The benchmark executable, run in-process at a tiny volume: it writes a report that
/// `spool report` reads, and refuses bad input with a non-zero status.
@Suite struct CounterBenchmarksTests {
  @Test func writesAReportOfItsWorkload() async throws {
    let folder = NSTemporaryDirectory() + "counter-benchmarks-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let status = await CounterBenchmarks.run(arguments: [
      "counter-taps", "--actions", "1000", "--rounds", "1", "--output", folder,
    ])
    #expect(status == 0)
    let files = try FileManager.default.contentsOfDirectory(atPath: folder)
    try #require(files.count == 1)
    #expect(files[0].hasPrefix("counter-taps-") && files[0].hasSuffix("Z.json"))
    let report = try Report.load(from: "\(folder)/\(files[0])")
    let workload = try #require(report.workloads.first)
    #expect(workload.name == "counter-taps")
    #expect(workload.actions == 1_000)
    #expect(workload.baselines.map(\.name) == ["raw-loop"])
    #expect(workload.throughputPerSecond > 0)
  }

  @Test func refusesAnUnknownWorkload() async {
    #expect(await CounterBenchmarks.run(arguments: ["nope"]) == 64)
  }
}

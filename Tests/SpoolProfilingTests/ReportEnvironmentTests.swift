import Foundation
import SpoolCore
import Testing

@testable import SpoolProfiling

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

@Suite struct ReportEnvironmentTests {
  @Test func theCurrentEnvironmentIsPlausible() {
    let environment = ReportEnvironment.current()
    #expect(!environment.hostName.isEmpty)
    #expect(environment.cores >= 1)
    #expect(environment.kernel.hasPrefix("Linux "))
    #expect(["debug", "release"].contains(environment.buildConfiguration))
    if let commit = environment.gitCommit {
      #expect(commit.count == 40 && commit.allSatisfy(\.isHexDigit))
    }
    #expect(environment.date.timeIntervalSince1970.rounded(.down)
      == environment.date.timeIntervalSince1970)
    let allowed = environment.allowedCores ?? 0
    #expect(allowed >= 1 && allowed <= environment.cores)
    // Cheap by default: the round trip and the clock read are only measured when asked for.
    #expect(environment.crossCoreRoundTripNanoseconds == nil)
    #expect(environment.clockReadNanoseconds == nil)
    #expect(environment.timeSource == SpoolTime.source.rawValue)
    if let model = environment.cpuModel {
      #expect(!model.isEmpty && !model.contains("\n"))
      #expect(model.trimmingCharacters(in: .whitespaces) == model)
    }
  }

  @Test func theCPUModelIsTheFirstModelNameLine() {
    let x86 = """
      processor\t: 0
      vendor_id\t: AuthenticAMD
      model\t\t: 1
      model name\t: AMD EPYC 7B13 64-Core Processor\t
      flags\t\t: fpu vme

      processor\t: 1
      model name\t: Another CPU
      """
    #expect(ReportEnvironment.cpuModel(inCPUInfo: x86) == "AMD EPYC 7B13 64-Core Processor")
    // AArch64 kernels print no model name.
    let arm = "processor\t: 0\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\n"
    #expect(ReportEnvironment.cpuModel(inCPUInfo: arm) == nil)
    #expect(ReportEnvironment.cpuModel(inCPUInfo: "model name\t:   \n") == nil)
    #expect(ReportEnvironment.cpuModel(inCPUInfo: "") == nil)
  }

  /// With two cores allowed the measurement runs; on a busy machine it may find no quiet
  /// window and give up, which must leave no figure rather than a wrong one. Neither its
  /// duration nor its success is asserted: both depend on what else the machine runs.
  @Test(.enabled(if: (CrossCoreLatency.allowedCPUs()?.count ?? 0) >= 2))
  func theCrossCoreRoundTripIsAFigureOrNothing() throws {
    let environment = ReportEnvironment.current(measuringCrossCoreLatency: true)
    #expect((environment.allowedCores ?? 0) >= 2)
    let header = environment.headerLines()
    guard let nanoseconds = environment.crossCoreRoundTripNanoseconds else {
      #expect(!header.contains { $0.contains("cross-core round trip") })
      return
    }
    #expect(nanoseconds.isFinite && nanoseconds > 0)
    #expect(header.last?.contains("cross-core round trip ") == true)
  }

  /// A figure on any machine, unless the monotonic clock stood still; its size is not
  /// asserted, which depends on the machine and on what else it runs.
  @Test func theClockReadIsAFigureThatTheHeaderShows() {
    let environment = ReportEnvironment.current(measuringClockReads: true)
    #expect(environment.crossCoreRoundTripNanoseconds == nil)
    let header = environment.headerLines().joined(separator: "\n")
    guard let nanoseconds = environment.clockReadNanoseconds else {
      #expect(!header.contains("per read"))
      return
    }
    #expect(nanoseconds.isFinite && nanoseconds > 0)
    #expect(
      header.hasSuffix(
        "clock: \(SpoolTime.source.rawValue), "
          + String(format: "%.1fns per read", nanoseconds)))
  }

  @Test func withOneCoreAllowedThereIsNoRoundTrip() throws {
    let cpu = try #require(CrossCoreLatency.allowedCPUs()?.first)
    // Written by the pinned thread; read after pthread_join, which orders the two.
    final class Outcome {
      var pinned = false
      var environment: ReportEnvironment?
    }
    let outcome = Outcome()
    let thread = try #require(
      CrossCoreLatency.startThread {
        outcome.pinned = CrossCoreLatency.pinCurrentThread(to: cpu)
        outcome.environment = .current(measuringCrossCoreLatency: true)
      })
    pthread_join(thread, nil)
    #expect(outcome.pinned)
    let environment = try #require(outcome.environment)
    #expect(environment.allowedCores == 1)
    #expect(environment.crossCoreRoundTripNanoseconds == nil)
    let header = environment.headerLines()
    #expect(header.last?.contains("cross-core round trip n/a (one core allowed)") == true)
    if environment.cores > 1 {
      #expect(header[0].contains("· \(environment.cores) cores (1 allowed) ·"))
    }
  }

  @Test func theHeaderNamesTheProcessorAndItsRoundTrip() {
    #expect(
      Fixtures.environment.headerLines() == [
        "test-host · 2 cores · Linux 6.8.0-test · Swift 6.3.1 release · abababababab · "
          + "2025-06-15T15:06:40Z",
        "Test CPU @ 3.00GHz · cross-core round trip 180ns · clock: counter, 11.4ns per read",
      ])
    var unmeasured = Fixtures.environment
    unmeasured.clockReadNanoseconds = nil
    #expect(unmeasured.headerLines().last?.hasSuffix("180ns · clock: counter") == true)
    var old = Fixtures.environment
    old.cpuModel = nil
    old.allowedCores = nil
    old.crossCoreRoundTripNanoseconds = nil
    old.timeSource = nil
    old.clockReadNanoseconds = nil
    // A report from before the fields: the header it always had, and nothing claimed.
    #expect(old.headerLines().count == 1)
    let table = String(decoding: Fixtures.report().rendered(as: .table), as: UTF8.self)
    #expect(table.hasPrefix(Fixtures.environment.headerLines().joined(separator: "\n") + "\n\n"))
  }

  @Test func aReportWithoutTheProcessorFieldsStillLoads() throws {
    let old = """
      {"schemaVersion": 1, "environment": {"hostName": "h", "cores": 2, "kernel": "Linux 6",
       "swiftVersion": "6.3", "buildConfiguration": "release", "date": "2026-11-22T08:00:00Z"},
       "workloads": []}
      """
    let report = try Report.decode(Array(old.utf8), path: "old.json")
    #expect(report.environment.cpuModel == nil)
    #expect(report.environment.allowedCores == nil)
    #expect(report.environment.crossCoreRoundTripNanoseconds == nil)
    #expect(report.environment.timeSource == nil)
    #expect(report.environment.clockReadNanoseconds == nil)
    // Written again, it still has none of them: absent, not null.
    let text = String(decoding: report.rendered(as: .json), as: UTF8.self)
    let keys = [
      "cpuModel", "allowedCores", "crossCoreRoundTripNanoseconds", "timeSource",
      "clockReadNanoseconds",
    ]
    for key in keys {
      #expect(!text.contains(key))
    }
  }

  @Test func aReportWithTheProcessorFieldsRoundTrips() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("new.json")
    try Fixtures.report().write(to: path, format: .json)
    let text = try String(contentsOfFile: path, encoding: .utf8)
    #expect(text.contains(#""cpuModel" : "Test CPU @ 3.00GHz""#))
    #expect(text.contains(#""crossCoreRoundTripNanoseconds" : 180.5"#))
    #expect(text.contains(#""timeSource" : "counter""#))
    #expect(text.contains(#""clockReadNanoseconds" : 11.4"#))
    let loaded = try Report.load(from: path)
    #expect(loaded == Fixtures.report())
    #expect(loaded.environment.allowedCores == 2)
  }

  @Test func peakResidentSizeIsKnown() throws {
    let bytes = try #require(ProcessStatistics.peakResidentBytes())
    #expect(bytes > 1 << 20)
  }
}

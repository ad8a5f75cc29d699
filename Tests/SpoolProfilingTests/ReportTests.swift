import Foundation
import Testing

@testable import SpoolProfiling

@Suite struct ReportTests {
  @Test func jsonRoundTripsTheWholeModel() throws {
    let report = Fixtures.report([Fixtures.workload(), Fixtures.workload(name: "empty-case")])
    let bytes = report.rendered(as: .json)
    #expect(try Report.decode(bytes, path: "memory") == report)
  }

  @Test func everyWriterWritesAFileAndTheJSONOneReadsBack() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let report = Fixtures.report()
    for format in ReportFormat.allCases {
      let path = directory.file("report.\(format.rawValue)")
      try report.write(to: path, format: format)
      let written = try Data(contentsOf: URL(fileURLWithPath: path))
      #expect(Array(written) == report.rendered(as: format))
    }
    #expect(try Report.load(from: directory.file("report.json")) == report)
    // Nothing but the four outputs: every temporary file was renamed.
    let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    #expect(names == ["report.json", "report.svg", "report.table", "report.trace"])
  }

  @Test func aRecordedWorkloadRoundTrips() throws {
    enum Action: Sendable { case tap, load }
    let recorder = LatencyRecorder<Action>()
    for index in 0..<1_000 {
      let time = UInt64(index) * 97
      recorder.actionReduced(
        index % 3 == 0 ? .load : .tap, enqueuedAt: time, startedAt: time + UInt64(index % 50),
        endedAt: time + 60 + UInt64(index % 7))
    }
    recorder.effectStarted(by: .load, at: 5)
    recorder.effectEnded(by: .load, startedAt: 5, endedAt: 900, outcome: .cancelled)
    let report = Fixtures.report([
      WorkloadReport(name: "mixed", durationSeconds: 0.001, recording: recorder.recording())
    ])
    #expect(try Report.decode(report.rendered(as: .json), path: "memory") == report)
  }

  @Test func theJSONHasTheFieldsBenchPrints() throws {
    let object = try JSONSerialization.jsonObject(
      with: Data(Fixtures.report().rendered(as: .json))) as? [String: Any]
    #expect(object?["schemaVersion"] as? Int == Report.currentSchemaVersion)
    let workload = try #require((object?["workloads"] as? [[String: Any]])?.first)
    for key in [
      "name", "actions", "durationSeconds", "throughputPerSecond", "peakRSSBytes", "ioBackend",
      "parameters", "baselines", "actionCases", "effects",
    ] {
      #expect(workload[key] != nil, "missing \(key)")
    }
    let baseline = try #require((workload["baselines"] as? [[String: Any]])?.first)
    #expect(Set(baseline.keys) == ["name", "throughputPerSecond"])
  }

  @Test func theTableShowsEveryCaseAndFigure() {
    let table = String(decoding: Fixtures.report().rendered(as: .table), as: UTF8.self)
    #expect(table.contains("== counter (actions=1000000 producers=2)"))
    #expect(table.contains("1.00M/s"))
    #expect(table.contains("vs plain-actor"))
    #expect(table.contains("child(.row(.toggle))"))
    #expect(table.contains("incrementButtonTapped"))
    #expect(table.contains("queue wait") && table.contains("reduce") && table.contains("effects"))
    #expect(!table.split(separator: "\n").contains { $0.hasSuffix(" ") })
  }

  @Test func theChromeTraceIsTraceEventJSON() throws {
    let bytes = Fixtures.report().rendered(as: .trace)
    let object = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]
    let events = try #require(object?["traceEvents"] as? [[String: Any]])
    let phases = events.compactMap { $0["ph"] as? String }
    // 1 process name + 3 thread names, 1 reduce + 1 interval (X), 1 event (i),
    // queue wait and effect as b/e pairs.
    #expect(phases.filter { $0 == "M" }.count == 4)
    #expect(phases.filter { $0 == "X" }.count == 2)
    #expect(phases.filter { $0 == "i" }.count == 1)
    #expect(phases.filter { $0 == "b" }.count == 2)
    #expect(phases.filter { $0 == "e" }.count == 2)
    let reduce = try #require(events.first { $0["cat"] as? String == "reduce" })
    #expect(reduce["ts"] as? Double == 0.5)
    #expect(reduce["dur"] as? Double == 0.04)
  }

  @Test func theSVGHasOneLinePerCaseAndMetric() {
    let svg = String(decoding: Fixtures.report().rendered(as: .svg), as: UTF8.self)
    #expect(svg.hasPrefix("<svg"))
    #expect(svg.hasSuffix("</svg>\n"))
    #expect(svg.components(separatedBy: "<polyline").count - 1 == 4)
    #expect(svg.contains("99.9%"))
    #expect(svg.contains("child(.row(.toggle))"))
    let empty = Fixtures.report([WorkloadReport(name: "none", actions: 0, durationSeconds: 0)])
    #expect(String(decoding: empty.rendered(as: .svg), as: UTF8.self).contains("No latency"))
  }

  @Test func aZeroDurationHasZeroThroughputAndStillEncodes() throws {
    let workload = WorkloadReport(name: "instant", actions: 10, durationSeconds: 0)
    #expect(workload.throughputPerSecond == 0)
    let report = Fixtures.report([workload])
    #expect(try Report.decode(report.rendered(as: .json), path: "memory") == report)
  }
}

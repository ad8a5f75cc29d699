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

  @Test func mergingRoundsTakesEachSidesMedianAndKeepsEveryRound() throws {
    func round(_ spool: Double, plainActor: Double, peak: Int, reduceP99: UInt64)
      -> WorkloadReport
    {
      var report = Fixtures.workload(throughput: spool, reduceP50: 5, reduceP99: reduceP99)
      report.baselines = [
        Baseline(name: "raw-loop", throughputPerSecond: 400_000_000),
        Baseline(name: "plain-actor", throughputPerSecond: plainActor),
      ]
      report.peakRSSBytes = peak
      return report
    }
    let rounds = [
      round(2_000_000, plainActor: 9_000_000, peak: 30 << 20, reduceP99: 10),
      round(500_000, plainActor: 14_000_000, peak: 40 << 20, reduceP99: 20),
      round(1_000_000, plainActor: 12_000_000, peak: 35 << 20, reduceP99: 30),
    ]
    let merged = WorkloadReport.mergingRounds(rounds)
    // Spool: its median round (1 M/s, the third), duration and throughput together.
    #expect(merged.throughputPerSecond == 1_000_000)
    #expect(merged.durationSeconds == rounds[2].durationSeconds)
    // Each baseline: the ratio is the median of the rounds' ratios (plain-actor: 2/9, 0.5/14,
    // 1/12 → 1/12), with Spool's median throughput.
    func ratio(_ report: WorkloadReport, _ baseline: Int) -> Double {
      report.throughputPerSecond / report.baselines[baseline].throughputPerSecond
    }
    #expect(abs(ratio(merged, 1) - 1.0 / 12) < 1e-12)
    #expect(abs(ratio(merged, 0) - 1.0 / 400) < 1e-12)
    #expect(merged.peakRSSBytes == 30 << 20, "the first round's")
    // Latencies from the last round (the profiled one); every round's figures, in order.
    #expect(merged.actionCases == rounds[2].actionCases)
    #expect(merged.rounds?.map(\.throughputPerSecond) == [2_000_000, 500_000, 1_000_000])
    #expect(merged.rounds?[1].baselines[1].throughputPerSecond == 14_000_000)
    // An even count takes the lower middle value, an actual round's figure.
    // Here the ratio of each side's median would be 0.5/9; the rounds' ratios are 2/9 and 0.5/14.
    let two = WorkloadReport.mergingRounds(Array(rounds.prefix(2)))
    #expect(two.throughputPerSecond == 500_000)
    #expect(abs(ratio(two, 1) - 0.5 / 14) < 1e-12)
    // One round is returned as it is, without `rounds`; `rounds` survives the JSON.
    #expect(WorkloadReport.mergingRounds([rounds[0]]) == rounds[0])
    let report = Fixtures.report([merged])
    #expect(try Report.decode(report.rendered(as: .json), path: "memory") == report)
  }

  @Test func aZeroDurationHasZeroThroughputAndStillEncodes() throws {
    let workload = WorkloadReport(name: "instant", actions: 10, durationSeconds: 0)
    #expect(workload.throughputPerSecond == 0)
    let report = Fixtures.report([workload])
    #expect(try Report.decode(report.rendered(as: .json), path: "memory") == report)
  }
}

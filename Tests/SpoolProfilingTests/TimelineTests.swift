import Foundation
import Spool
import Testing

@testable import SpoolProfiling

/// The timeline of a report: what ``TimelineRecorder`` samples, how the report carries it
/// through JSON, and how the table and the SVG show it; older reports without one still read.
@Suite struct TimelineTests {
  enum Counter: Sendable { case increment, add(Int) }
  enum Loader: Sendable { case load }

  @Test func theRecorderSamplesEachIntervalAndStartsAgain() throws {
    let timeline = TimelineRecorder(startingAt: 1_000)
    let counter = timeline.instrumentation("counter", for: Counter.self)
    let loader = timeline.instrumentation("loader", for: Loader.self)
    for index in 0..<100 {
      // Queue waits 1…100 µs, reduce 50 ns.
      let enqueued = UInt64(10_000 + index * 1_000_000)
      let started = enqueued + UInt64(index + 1) * 1_000
      counter.actionReduced(
        .increment, enqueuedAt: enqueued, startedAt: started, endedAt: started + 50)
    }
    loader.actionReduced(.load, enqueuedAt: 5, startedAt: 10, endedAt: 2_010)
    loader.effectStarted(by: .load, at: 2_010)
    loader.effectStarted(by: .load, at: 2_020)
    loader.effectEnded(by: .load, startedAt: 2_010, endedAt: 9_010, outcome: .finished)

    let first = timeline.sample(residentBytes: 40 << 20, at: 1_000_001_000)
    #expect(first.elapsedSeconds == 1)
    #expect(first.durationSeconds == 1)
    #expect(first.residentBytes == 40 << 20)
    #expect(first.actions == 101)
    #expect(first.liveEffects == 1)
    #expect(first.features.map(\.name) == ["counter", "loader"])
    #expect(first.features.map(\.actions) == [100, 1])
    #expect(first.features.map(\.liveEffects) == [0, 1])
    // Two significant digits: within 1% of the recorded value.
    let counterP99 = Double(first.features[0].queueWaitP99Nanoseconds)
    #expect(abs(counterP99 - 99_000) <= 990)
    #expect(first.features[1].reduceP99Nanoseconds >= 1_980)
    #expect(first.reduce.maxNanoseconds >= 1_980)
    #expect(first.queueWait.p50Nanoseconds >= 49_000 && first.queueWait.p50Nanoseconds <= 51_000)

    loader.effectEnded(by: .load, startedAt: 2_020, endedAt: 3_020, outcome: .cancelled)
    let second = timeline.sample(residentBytes: 41 << 20, at: 1_500_001_000)
    #expect(second.elapsedSeconds == 1.5)
    #expect(second.durationSeconds == 0.5)
    #expect(second.actions == 0)
    #expect(second.liveEffects == 0)
    #expect(second.queueWait == .empty)
    #expect(second.reduce == .empty)

    let totals = timeline.actionCases()
    #expect(totals.map(\.label) == ["counter", "loader"])
    #expect(totals.map(\.count) == [100, 1])
    let effects = timeline.effects()
    #expect(effects.map(\.label) == ["loader"])
    #expect(effects.first?.started == 2)
    #expect(effects.first?.finished == 1)
    #expect(effects.first?.cancelled == 1)
    #expect(effects.first?.inFlight == 0)
  }

  @Test func featuresAreListedInTheGivenOrderWhateverOrderTheyRegistered() {
    let timeline = TimelineRecorder(startingAt: 0, featureOrder: ["counter", "loader"])
    let other = timeline.instrumentation("other", for: Loader.self)
    let loader = timeline.instrumentation("loader", for: Loader.self)
    let counter = timeline.instrumentation("counter", for: Counter.self)
    counter.actionReduced(.increment, enqueuedAt: 1, startedAt: 2, endedAt: 3)
    loader.actionReduced(.load, enqueuedAt: 1, startedAt: 2, endedAt: 3)
    loader.actionReduced(.load, enqueuedAt: 1, startedAt: 2, endedAt: 3)
    other.actionReduced(.load, enqueuedAt: 1, startedAt: 2, endedAt: 3)
    let sample = timeline.sample(residentBytes: 0, at: 10)
    #expect(sample.features.map(\.name) == ["counter", "loader", "other"])
    #expect(sample.features.map(\.actions) == [1, 2, 1])
    let totals = timeline.actionCases()
    #expect(totals.map(\.label) == ["counter", "loader", "other"])
    #expect(totals.map(\.count) == [1, 2, 1])
  }

  @Test func theRecorderWorksAsAStoresInstrumentation() async {
    let timeline = TimelineRecorder()
    let store = Store(
      initialState: 0, instrumentation: timeline.instrumentation("counter", for: Counter.self)
    ) { TimelineTestCounter() }
    for _ in 0..<500 { store.enqueue(.increment) }
    await store.send(.add(10))
    await store.finish()
    #expect(await store.state == 510)
    let sample = timeline.sample(residentBytes: 0)
    #expect(sample.actions == 501)
    #expect(timeline.actionCases().map(\.count) == [501])
  }

  static func soakReport(verdict outcome: FlatnessVerdict.Outcome = .flat) -> Report {
    let samples = FlatnessCriteriaTests.timeline(count: 12)
    var workload = Fixtures.workload(name: "soak")
    workload.timeline = Timeline(
      intervalSeconds: 1, samples: samples, flatness: FlatnessCriteria().verdict(for: samples))
    return Fixtures.report([workload, Fixtures.workload(name: "counter")])
  }

  @Test func aReportWithATimelineRoundTripsThroughJSON() throws {
    let report = Self.soakReport()
    let bytes = report.rendered(as: .json)
    let decoded = try Report.decode(bytes, path: "soak.json")
    #expect(decoded == report)
    #expect(decoded.workloads[0].timeline?.samples.count == 12)
    #expect(decoded.workloads[0].timeline?.flatness.outcome == .flat)
    #expect(decoded.workloads[1].timeline == nil)
    let text = String(decoding: bytes, as: UTF8.self)
    #expect(text.contains("\"timeline\""))
    #expect(text.contains("\"outcome\" : \"flat\""))
    // A workload without a timeline writes no key for it, as before the field existed.
    let counterOnly = Fixtures.report([Fixtures.workload(name: "counter")])
    let counterText = String(decoding: counterOnly.rendered(as: .json), as: UTF8.self)
    #expect(!counterText.contains("timeline"))
  }

  @Test func aReportWrittenBeforeTimelinesStillLoads() throws {
    // The committed reference reports, written before the field existed.
    let profiles = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("Profiles").path
    // Every one but the soak's, `soak-DATE.json` or, from `spool bench --reference`, `soak.json`.
    let names = try FileManager.default.contentsOfDirectory(atPath: profiles)
      .filter { $0.hasSuffix(".json") && !$0.hasPrefix("soak-") && $0 != "soak.json" }
    #expect(!names.isEmpty)
    for name in names {
      let path = "\(profiles)/\(name)"
      let text = try String(contentsOfFile: path, encoding: .utf8)
      #expect(!text.contains("\"timeline\""))
      let report = try Report.load(from: path)
      #expect(report.schemaVersion == 1)
      #expect(!report.workloads.isEmpty)
      #expect(report.workloads.allSatisfy { $0.timeline == nil })
      #expect(String(decoding: report.rendered(as: .table), as: UTF8.self).contains("== "))
    }
    // And a minimal one, hand-written.
    let minimal = """
      {"schemaVersion": 1, "environment": {"hostName": "h", "cores": 2, "kernel": "Linux 6",
       "swiftVersion": "6.3", "buildConfiguration": "release", "date": "2026-11-22T08:00:00Z"},
       "workloads": [{"name": "counter", "parameters": {}, "actions": 10, "durationSeconds": 1,
       "throughputPerSecond": 10, "baselines": [], "actionCases": [], "effects": [],
       "trace": []}]}
      """
    let decoded = try Report.decode(Array(minimal.utf8), path: "old.json")
    #expect(decoded.workloads[0].timeline == nil)
  }

  @Test func theTableShowsTheTimelineAndItsVerdict() {
    let text = String(decoding: Self.soakReport().rendered(as: .table), as: UTF8.self)
    #expect(text.contains("timeline: 12 samples every 1.00s · flat (samples 3-5 vs 10-12)"))
    for title in ["RSS", "actions/s", "queue wait p99", "reduce p99", "live effects"] {
      #expect(text.contains("\n" + title.padding(toLength: 16, withPad: " ", startingAt: 0)))
    }
    #expect(text.contains("RSS stayed flat: 40.0 MiB → 40.0 MiB"))
  }

  @Test func sparklinesScaleFromZero() {
    #expect(Timeline.sparkline([4, 4, 4], width: 10) == "███")
    #expect(Timeline.sparkline([0, 7, 14], width: 10) == "▁▅█")
    #expect(Timeline.sparkline([1, 9, 2, 2], width: 2) == "█▃")
    #expect(Timeline.sparkline([], width: 10) == "")
  }

  @Test func theTraceHasCounterTracksForTheTimeline() throws {
    let bytes = Self.soakReport().rendered(as: .trace)
    let object = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]
    let events = try #require(object?["traceEvents"] as? [[String: Any]])
    let counters = events.filter { $0["ph"] as? String == "C" }
    // Four tracks, one value each per sample, all in the soak's process.
    #expect(counters.count == 4 * 12)
    #expect(Set(counters.compactMap { $0["name"] as? String })
      == ["RSS (MiB)", "actions/s", "p99 (µs)", "live effects"])
    #expect(counters.allSatisfy { $0["pid"] as? Int == 1 })
    let rss = counters.filter { $0["name"] as? String == "RSS (MiB)" }
    #expect(rss.first?["ts"] as? Double == 1e6)
    #expect((rss.first?["args"] as? [String: Any])?["rss"] as? Double == 40)
    let p99 = try #require(counters.first { $0["name"] as? String == "p99 (µs)" })
    #expect((p99["args"] as? [String: Any])?["reduce"] as? Double == 2)
    // Metadata events keep their name.
    #expect(events.contains { ($0["args"] as? [String: Any])?["name"] as? String == "soak" })
  }

  @Test func theSVGDrawsTheTimeline() {
    let svg = String(decoding: Self.soakReport().rendered(as: .svg), as: UTF8.self)
    #expect(svg.hasPrefix("<svg"))
    #expect(svg.contains("soak: memory and p99 over time · flat"))
    #expect(svg.contains("counter: latency by percentile"))
    #expect(svg.hasSuffix("</svg>\n"))
  }
}

/// A counter over the test's action type, for a real store.
struct TimelineTestCounter: Reducer {
  func reduce(
    into state: inout Int, action: TimelineTests.Counter
  ) -> Effect<TimelineTests.Counter> {
    if case let .add(value) = action { state += value } else { state += 1 }
    return .none
  }
}

import SpoolBench
import SpoolProfiling
import Testing

@testable import SpoolWorkloads

/// A short soak at small volumes: every feature runs, every count is exact, the timeline has
/// one sample per interval and is judged.
@Suite(.serialized)
struct SoakWorkloadTests {
  static let features = [
    "counter", "counter-send", "fan-in", "effects", "cancellation", "search", "file-io", "echo",
    "todos",
  ]

  /// `driven.FEATURE`, `"N unit"`, as N.
  private func driven(_ report: WorkloadReport, _ feature: String) throws -> Int {
    let text = try #require(report.parameters["driven.\(feature)"])
    return try #require(Int(text.split(separator: " ")[0]))
  }

  @Test func aShortSoakRunsEveryFeatureWithExactCounts() async throws {
    var configuration = SoakConfiguration(duration: .seconds(2), window: 64, producers: 2)
    configuration.interval = .milliseconds(250)
    configuration.readWindow = 8
    configuration.connections = 2
    configuration.rows = 100
    let report = try await SoakWorkload.soak(configuration, progress: BenchProgress())

    #expect(report.name == "soak")
    #expect(report.actionCases.map(\.label) == Self.features)
    let reduced = Dictionary(uniqueKeysWithValues: report.actionCases.map { ($0.label, $0.count) })
    for feature in Self.features {
      #expect(try driven(report, feature) > 0, "\(feature) ran at least one window")
    }
    // One action per unit, two per round trip or read (request and response), and one
    // `.stop` per window of cancellation restarts.
    for feature in ["counter", "counter-send", "fan-in", "todos"] {
      #expect(reduced[feature] == (try driven(report, feature)), "\(feature)")
    }
    #expect(reduced["effects"] == 2 * (try driven(report, "effects")))
    #expect(reduced["file-io"] == 2 * (try driven(report, "file-io")))
    let restarts = try driven(report, "cancellation")
    #expect(restarts.isMultiple(of: 64))
    #expect(reduced["cancellation"] == restarts + restarts / 64)
    // A keystroke each, plus at least one answer per word.
    #expect((reduced["search"] ?? 0) > (try driven(report, "search")))
    // At least one `received` per round trip, plus accepting and closing the connections.
    #expect((reduced["echo"] ?? 0) > (try driven(report, "echo")))
    #expect(report.actions == report.actionCases.reduce(0) { $0 + $1.count })
    for feature in ["counter", "fan-in", "todos"] {
      #expect(report.parameters["observed.\(feature)"] != nil, "\(feature) had an observer")
    }

    #expect(report.effects.allSatisfy { $0.inFlight == 0 && $0.failed == 0 })
    #expect(
      Set(report.effects.map(\.label))
        == ["effects", "cancellation", "search", "file-io", "echo"])

    let timeline = try #require(report.timeline)
    #expect(timeline.intervalSeconds == 0.25)
    #expect(timeline.samples.count == 8)
    #expect(timeline.samples.allSatisfy { $0.features.map(\.name) == Self.features })
    #expect(timeline.samples.allSatisfy { $0.residentBytes > 0 })
    #expect(zip(timeline.samples, timeline.samples.dropFirst()).allSatisfy {
      $0.elapsedSeconds < $1.elapsedSeconds
    })
    #expect(timeline.samples.reduce(0) { $0 + $1.actions } <= report.actions)
    // 8 samples: 1 of warm-up, two thirds of 2 compared; flat or not, it is judged.
    #expect(timeline.flatness.outcome != .tooShort)
    #expect(timeline.flatness.warmUpSamples == 1)
    #expect(timeline.flatness.windowSamples == 2)
    #expect(timeline.flatness.checks.count == FlatnessCheck.Metric.allCases.count)
  }

  @Test func theWorkloadTakesItsWindowAndDurationFromTheOptions() async throws {
    let soak = try #require(Workload.named("soak"))
    let reports = try await soak.run(
      WorkloadOptions(actions: 32, producers: 1, duration: .seconds(1)), progress: BenchProgress())
    let report = try #require(reports.first)
    #expect(report.parameters["window"] == "32")
    #expect(report.parameters["producers"] == "1")
    #expect(report.parameters["durationSeconds"] == "1")
    #expect(report.timeline?.samples.count == 1)
    #expect(report.timeline?.flatness.outcome == .tooShort)
  }

  @Test func aSoakSamplesEverySecondUpTo240Samples() {
    #expect(SoakConfiguration(duration: .seconds(60)).interval == .seconds(1))
    #expect(SoakConfiguration(duration: .seconds(3_600)).interval == .seconds(15))
  }
}

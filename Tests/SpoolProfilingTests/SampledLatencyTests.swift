import Foundation
import Spool
import SpoolProfiling
import Synchronization
import Testing

/// A sampled `LatencyRecorder` against a known distribution: a real store, a reducer whose
/// cost is its action's payload, and a synthetic clock that advances by that cost, so that
/// the figures are the same on any machine, however loaded.
@Suite struct SampledLatencyTests {
  /// `.work(nanoseconds)` takes that long on the synthetic clock.
  struct Synthetic: Reducer {
    enum Action: Sendable { case work(UInt64) }
    func reduce(into state: inout Int, action: Action) -> Effect<Action> {
      state += 1
      return .none
    }
  }

  /// Hands the store's reports to `recorder`, with the times of a clock that advances by each
  /// action's cost, timed or not; samples as the recorder asks.
  final class SyntheticClock: StoreInstrumentation {
    typealias Action = Synthetic.Action
    let recorder: LatencyRecorder<Action>
    let now = Mutex<UInt64>(1_000_000)
    var timingSampling: TimingSampling { recorder.timingSampling }

    init(_ recorder: LatencyRecorder<Action>) { self.recorder = recorder }

    private func advance(by action: Action) -> UInt64 {
      guard case let .work(cost) = action else { return 0 }
      return now.withLock { now in
        now += cost
        return now
      }
    }

    func actionReduced(_ action: Action, enqueuedAt: UInt64, startedAt: UInt64, endedAt: UInt64) {
      guard case let .work(cost) = action else { return }
      let end = advance(by: action)
      recorder.actionReduced(action, enqueuedAt: end - cost, startedAt: end - cost, endedAt: end)
    }
    func actionCounted(_ action: Action) {
      _ = advance(by: action)
      recorder.actionCounted(action)
    }
    func effectStarted(by action: Action, at time: UInt64) {}
    func effectEnded(
      by action: Action, startedAt: UInt64, endedAt: UInt64, outcome: EffectOutcome
    ) {}
  }

  /// SplitMix64: the same costs on every run.
  struct Costs {
    var state: UInt64 = 0x5EED
    mutating func next() -> UInt64 {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
    /// 95% between 1 and 2 µs, 5% between 10 and 20 µs: a body and a tail.
    mutating func cost() -> UInt64 {
      let tail = next() % 100 < 5
      let spread = next() % 1_000
      return tail ? 10_000 + spread * 10 : 1_000 + spread
    }
  }

  static let actions = 64_000
  static let costs: [UInt64] = {
    var generator = Costs()
    return (0..<actions).map { _ in generator.cost() }
  }()
  static let sortedCosts = costs.sorted()

  /// The true percentile `p` of the costs (the smallest value with at least `p`% at or below).
  static func truth(_ p: Double) -> UInt64 {
    let rank = Int((p / 100 * Double(actions)).rounded(.up))
    return sortedCosts[max(rank, 1) - 1]
  }

  /// The share of the costs at or below `value`.
  static func share(atOrBelow value: Double) -> Double {
    Double(sortedCosts.prefix { Double($0) <= value }.count) / Double(actions)
  }

  /// Sends every cost to a store instrumented by a recorder that samples as asked.
  static func record(_ sampling: TimingSampling) async -> LatencyRecording {
    let recorder = LatencyRecorder<Synthetic.Action>(traceCapacity: 0, sampling: sampling)
    let store = Store(initialState: 0, instrumentation: SyntheticClock(recorder)) {
      Synthetic()
    }
    for cost in costs { await store.send(.work(cost)) }
    await store.finish()
    return recorder.recording()
  }

  @Test(arguments: [1, 16])
  func percentilesStayWithinTheirStatedError(interval: Int) async throws {
    let recording = await Self.record(.oneIn(interval))
    #expect(recording.actions == Self.actions)
    #expect(recording.timingSampling.interval == interval)
    let row = try #require(recording.actionCases.first)
    #expect(row.count == Self.actions, "every action counted")
    let timed = Self.actions / interval
    #expect(row.reduce.count == timed, "one in \(interval) timed")

    for (p, reported) in [(50.0, row.reduce.p50Nanoseconds), (99.0, row.reduce.p99Nanoseconds)] {
      let truth = Double(Self.truth(p))
      // The target: within 5% of the truth.
      #expect(abs(Double(reported) - truth) <= truth * 0.05, "p\(p): \(reported) vs \(truth)")
      // TimingSampling's stated error: the reported value is, to the histogram's 1%, the
      // value of a rank within three standard errors of p.
      let q = p / 100
      let bound = 3 * (q * (1 - q) / Double(timed)).squareRoot()
      #expect(Self.share(atOrBelow: Double(reported) * 1.01) >= q - bound, "p\(p) too low")
      #expect(Self.share(atOrBelow: Double(reported) * 0.99) <= q + bound, "p\(p) too high")
    }
  }

  @Test func theReportSaysItWasSampledAndWithWhichInterval() throws {
    let recorder = LatencyRecorder<Synthetic.Action>(sampling: .oneIn(16))
    recorder.actionReduced(.work(1_000), enqueuedAt: 10, startedAt: 20, endedAt: 1_020)
    for _ in 0..<15 { recorder.actionCounted(.work(1_000)) }
    let workload = WorkloadReport(
      name: "sampled", durationSeconds: 0.001, recording: recorder.recording())
    #expect(workload.actions == 16)
    #expect(workload.timingSampleInterval == 16)
    #expect(workload.actionCases.first?.count == 16)
    #expect(workload.actionCases.first?.reduce.count == 1)
    let report = Report(environment: Fixtures.environment, workloads: [workload])
    let json = report.rendered(as: .json)
    #expect(String(decoding: json, as: UTF8.self).contains("\"timingSampleInterval\""))
    #expect(try Report.decode(json, path: "memory") == report)
    let table = String(decoding: report.rendered(as: .table), as: UTF8.self)
    #expect(table.contains("timed 1 in 16"))
    #expect(table.contains("reduce (sampled: 1 action in 16 timed; counts are exact)"))

    let unsampled = WorkloadReport(
      name: "every", durationSeconds: 0.001,
      recording: LatencyRecorder<Synthetic.Action>().recording())
    #expect(unsampled.timingSampleInterval == nil)
    let everyJSON = Report(environment: Fixtures.environment, workloads: [unsampled])
      .rendered(as: .json)
    #expect(!String(decoding: everyJSON, as: UTF8.self).contains("timingSampleInterval"))
  }

  @Test func aSampleIntervalBelowOneIsRejectedWhenRead() throws {
    var workload = WorkloadReport(name: "bad", actions: 1, durationSeconds: 1)
    workload.timingSampleInterval = 0
    let report = Report(environment: Fixtures.environment, workloads: [workload])
    #expect(throws: ReportFileError.self) {
      try Report.decode(report.rendered(as: .json), path: "bad.json")
    }
  }
}

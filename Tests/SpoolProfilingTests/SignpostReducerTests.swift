import Foundation
import Spool
import SpoolProfiling
import Testing

/// `Reducer.signpost(_:into:)`: a store's reduces, effects and effect outputs as signposts.
@Suite struct SignpostReducerTests {
  enum CancelID { case long }

  struct Feature: Reducer {
    struct State: Equatable, Sendable { var count = 0 }
    enum Action: Equatable, Sendable {
      case tap
      case fetch
      case response(Int)
      case startLong
      case stopLong
    }

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .tap:
        state.count += 1
        return .none
      case .fetch:
        return .run { send in
          await send(.response(1))
          await send(.response(2))
        }
      case .response(let value):
        state.count += value
        return .none
      case .startLong:
        return .run { _ in try await Task.sleep(for: .seconds(3600)) }
          .cancellable(id: CancelID.long)
      case .stopLong:
        return .cancel(id: CancelID.long)
      }
    }
  }

  /// Runs every kind of record through a store: a plain reduce, a finished effect that sends
  /// two actions, a cancelled effect.
  func record(into signposter: Signposter) async {
    let store = Store(initialState: Feature.State()) {
      Feature().signpost("Feature", into: signposter)
    }
    await store.send(.tap)
    await store.send(.fetch).finish()
    let long = await store.send(.startLong)
    await store.send(.stopLong)
    await long.finish()
    await store.finish()
    #expect(await store.state.count == 4)
  }

  /// How many records there are of each (kind, name).
  func counts(_ trace: [TraceInterval]) -> [String: Int] {
    trace.reduce(into: [:]) { counts, record in
      counts["\(record.kind) \(record.name)", default: 0] += 1
    }
  }

  @Test func recordsReducesEffectsWithTheirOutcomeAndOutputs() async {
    let signposter = Signposter(capacity: 64)
    signposter.isEnabled = true
    await record(into: signposter)
    #expect(
      counts(signposter.intervals()) == [
        "interval [Feature] tap": 1,
        "interval [Feature] fetch": 1,
        "interval [Feature] response": 2,
        "interval [Feature] startLong": 1,
        "interval [Feature] stopLong": 1,
        "effect [Feature] effect of fetch: finished": 1,
        "effect [Feature] effect of startLong: cancelled": 1,
        "event [Feature] effect output: response": 2,
      ])
  }

  @Test func theOutputsOfAnEffectFallInsideItsInterval() async throws {
    let signposter = Signposter(capacity: 64)
    signposter.isEnabled = true
    await record(into: signposter)
    let trace = signposter.intervals()
    let effect = try #require(trace.first { $0.name.hasSuffix("effect of fetch: finished") })
    let outputs = trace.filter { $0.kind == .event }
    #expect(outputs.count == 2)
    for output in outputs {
      #expect(output.startNanoseconds >= effect.startNanoseconds)
      #expect(output.startNanoseconds <= effect.startNanoseconds + effect.durationNanoseconds)
    }
  }

  @Test func withoutAPrefixNamesAreTheCasesAlone() async {
    let signposter = Signposter(capacity: 8)
    signposter.isEnabled = true
    let store = Store(initialState: Feature.State()) { Feature().signpost(into: signposter) }
    await store.send(.tap)
    #expect(signposter.intervals().map(\.name) == ["tap"])
  }

  @Test func aDisabledSignposterRecordsNothing() async {
    let signposter = Signposter(capacity: 64)
    await record(into: signposter)
    #expect(signposter.intervals().isEmpty)
  }

  @Test func theRecordsReachAReportsChromeTrace() async throws {
    let signposter = Signposter(capacity: 64)
    signposter.isEnabled = true
    await record(into: signposter)
    let recording = LatencyRecorder<Feature.Action>().recording(signposter: signposter)
    let workload = WorkloadReport(
      name: "signposts", parameters: [:], durationSeconds: 1, recording: recording)
    let report = Report(environment: Fixtures.environment, workloads: [workload])
    let object = try JSONSerialization.jsonObject(with: Data(report.rendered(as: .trace)))
    let events = try #require((object as? [String: Any])?["traceEvents"] as? [[String: Any]])
    func phases(of name: String) -> [String] {
      events.filter { $0["name"] as? String == name }.compactMap { $0["ph"] as? String }
    }
    #expect(phases(of: "[Feature] tap") == ["X"])
    #expect(phases(of: "[Feature] effect of fetch: finished") == ["b", "e"])
    #expect(phases(of: "[Feature] effect of startLong: cancelled") == ["b", "e"])
    #expect(phases(of: "[Feature] effect output: response") == ["i", "i"])
  }
}

import Metrics
import MetricsTestKit
import Spool
import SpoolMetrics
import Testing

@Suite struct MetricsInstrumentationTests {
  typealias Labels = StoreMetricLabels

  func caseDimensions(_ action: String) -> [(String, String)] {
    [(Labels.store, "feature"), (Labels.action, action)]
  }

  @Test func recordsTheGivenTimesPerCase() throws {
    let metrics = TestMetrics()
    let instrumentation = MetricsInstrumentation<Feature.Action>(
      store: "feature", recording: .timers, factory: metrics)
    instrumentation.actionReduced(.tap, enqueuedAt: 100, startedAt: 150, endedAt: 190)
    instrumentation.actionReduced(.tap, enqueuedAt: 1_000, startedAt: 1_700, endedAt: 1_710)
    instrumentation.actionReduced(
      .child(.increment), enqueuedAt: 5, startedAt: 5, endedAt: 2_005)
    // A start read on another core a moment before the enqueue counts as no wait at all.
    instrumentation.actionReduced(.response, enqueuedAt: 30, startedAt: 20, endedAt: 25)

    let tapWait = try metrics.expectTimer(Labels.queueWait, caseDimensions("tap"))
    let tapReduce = try metrics.expectTimer(Labels.reduce, caseDimensions("tap"))
    #expect(tapWait.values == [50, 700])
    #expect(tapReduce.values == [40, 10])
    let child = try metrics.expectTimer(Labels.reduce, caseDimensions("child(.increment)"))
    #expect(child.values == [2_000])
    let response = try metrics.expectTimer(Labels.queueWait, caseDimensions("response"))
    #expect(response.values == [0])
  }

  @Test func countsEffectOutcomesAndRunningEffects() throws {
    let metrics = TestMetrics()
    let instrumentation = MetricsInstrumentation<Feature.Action>(
      store: "feature", factory: metrics)
    instrumentation.effectStarted(by: .startLong, at: 10)
    instrumentation.effectStarted(by: .startLong, at: 20)
    instrumentation.effectStarted(by: .fail, at: 30)
    instrumentation.effectEnded(by: .startLong, startedAt: 20, endedAt: 40, outcome: .cancelled)
    instrumentation.effectEnded(by: .fail, startedAt: 30, endedAt: 50, outcome: .failed)

    let running = try metrics.expectMeter(Labels.runningEffects, [(Labels.store, "feature")])
    #expect(running.lastValue == 1)
    let cancelled = try metrics.expectCounter(
      Labels.effects, caseDimensions("startLong") + [(Labels.outcome, "cancelled")])
    #expect(cancelled.totalValue == 1)
    let failed = try metrics.expectCounter(
      Labels.effects, caseDimensions("fail") + [(Labels.outcome, "failed")])
    #expect(failed.totalValue == 1)
    // No action was reduced: no timer exists.
    #expect(metrics.timers.isEmpty)
  }

  @Test func reportsALiveStore() async throws {
    let factory = CountingMetricsFactory()
    let metrics = factory.metrics
    let instrumentation = MetricsInstrumentation<Feature.Action>(
      store: "feature", recording: .timers, factory: factory)
    let store = Store(initialState: Feature.State(), instrumentation: instrumentation) {
      Feature()
    }
    await store.runScript()

    let expectedCounts = [
      "tap": 100, "child(.increment)": 3, "startEffect": 1, "response": 2, "startLong": 2,
      "stopLong": 1, "fail": 1, "child(.startEffect)": 1,
    ]
    for (action, count) in expectedCounts {
      let wait = try metrics.expectTimer(Labels.queueWait, caseDimensions(action))
      let reduce = try metrics.expectTimer(Labels.reduce, caseDimensions(action))
      #expect(wait.values.count == count, "queue wait of \(action)")
      #expect(reduce.values.count == count, "reduce of \(action)")
      #expect(wait.values.allSatisfy { $0 >= 0 })
      #expect(reduce.values.allSatisfy { $0 >= 0 })
    }
    // Created once per case, not per action: 8 cases, 2 timers each.
    #expect(factory.madeCount("timer") == expectedCounts.count * 2)
    #expect(metrics.timers.count == expectedCounts.count * 2)

    let expectedOutcomes: [(String, EffectOutcome, Int64)] = [
      ("startEffect", .finished, 1), ("child(.startEffect)", .finished, 1),
      ("startLong", .cancelled, 2), ("fail", .failed, 1),
    ]
    for (action, outcome, count) in expectedOutcomes {
      for other in EffectOutcome.allCases {
        let counter = try metrics.expectCounter(
          Labels.effects, caseDimensions(action) + [(Labels.outcome, other.rawValue)])
        #expect(counter.totalValue == (other == outcome ? count : 0), "\(action) \(other)")
      }
    }
    // Three counters (one per outcome) for each of the four cases that started effects.
    #expect(factory.madeCount("counter") == 4 * 3)

    let running = try metrics.expectMeter(Labels.runningEffects, [(Labels.store, "feature")])
    #expect(running.lastValue == 0)
    #expect(running.values.contains(2))  // the two overlapping long effects
    #expect(factory.madeCount("meter") == 1)
  }
}

import InMemoryTracing
import MetricsTestKit
import Spool
import SpoolMetrics
import SpoolProfiling
import Testing

@Suite struct CombinedInstrumentationTests {
  @Test func feedsEveryPartOfOneStore() async throws {
    let recorder = LatencyRecorder<Feature.Action>()
    let metrics = TestMetrics()
    let tracer = InMemoryTracer()
    let combined = CombinedInstrumentation(
      recorder,
      MetricsInstrumentation<Feature.Action>(
        store: "feature", recording: .timers, factory: metrics),
      TracingInstrumentation<Feature.Action>(tracer: tracer)
    )
    #expect(combined.parts.count == 3)
    let store = Store(initialState: Feature.State(), instrumentation: combined) { Feature() }
    await store.runScript()

    let recording = recorder.recording()
    let recorded = recording.actionCases.first { $0.label == "tap" }
    #expect(recorded?.count == 100)
    let timer = try metrics.expectTimer(
      StoreMetricLabels.reduce,
      [(StoreMetricLabels.store, "feature"), (StoreMetricLabels.action, "tap")])
    #expect(timer.values.count == 100)
    #expect(recording.actions == 111)
    #expect(tracer.finishedSpans.count == 5)
  }
}

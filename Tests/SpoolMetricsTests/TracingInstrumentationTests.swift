import InMemoryTracing
import Spool
import SpoolMetrics
import Testing
import Tracing

@Suite struct TracingInstrumentationTests {
  typealias Instrumentation = TracingInstrumentation<Feature.Action>

  func string(_ name: String, of span: FinishedInMemorySpan) -> String? {
    guard case .string(let value) = span.attributes.get(name) else { return nil }
    return value
  }

  func outcome(_ span: FinishedInMemorySpan) -> String? {
    string(Instrumentation.outcomeAttribute, of: span)
  }

  @Test func opensOneSpanPerEffectWithTheRecordedInstants() throws {
    let tracer = InMemoryTracer()
    let instrumentation = Instrumentation(store: "feature", tracer: tracer)
    instrumentation.actionReduced(.tap, enqueuedAt: 1, startedAt: 2, endedAt: 3)
    instrumentation.effectStarted(by: .startEffect, at: 1_000)
    #expect(tracer.activeSpans.isEmpty)
    #expect(tracer.finishedSpans.isEmpty)
    instrumentation.effectEnded(
      by: .startEffect, startedAt: 1_000, endedAt: 6_000, outcome: .finished)

    let spans = tracer.finishedSpans
    try #require(spans.count == 1)
    #expect(spans[0].operationName == "startEffect")
    #expect(outcome(spans[0]) == "finished")
    #expect(string(Instrumentation.storeAttribute, of: spans[0]) == "feature")
    #expect(spans[0].status == nil)
    #expect(
      spans[0].endInstant.nanosecondsSinceEpoch - spans[0].startInstant.nanosecondsSinceEpoch
        == 5_000)
    #expect(tracer.activeSpans.isEmpty)
  }

  @Test func reportsALiveStore() async throws {
    let tracer = InMemoryTracer()
    let before = DefaultTracerClock.now.nanosecondsSinceEpoch
    let store = Store(
      initialState: Feature.State(), instrumentation: Instrumentation(tracer: tracer)
    ) {
      Feature()
    }
    await store.runScript()
    let after = DefaultTracerClock.now.nanosecondsSinceEpoch

    let spans = tracer.finishedSpans
    let summary = spans.map { "\($0.operationName) \(outcome($0) ?? "-")" }.sorted()
    #expect(
      summary == [
        "child(.startEffect) finished", "fail failed", "startEffect finished",
        "startLong cancelled", "startLong cancelled",
      ])
    for span in spans {
      // Only the failed effect is an error; a cancelled one is not.
      #expect((span.status?.code == .error) == (span.operationName == "fail"))
      #expect(span.attributes.get(Instrumentation.storeAttribute) == nil)
      // Store times land on the wall clock, not on a clock counted from boot (which would be
      // decades off). The slack is wide on purpose: the offset between the clocks is taken
      // from two reads at init, and a thread preempted between them on a busy machine skews
      // it by as long as it waited.
      let start = span.startInstant.nanosecondsSinceEpoch
      let end = span.endInstant.nanosecondsSinceEpoch
      let slack: UInt64 = 60_000_000_000
      #expect(start <= end)
      #expect(start + slack >= before)
      #expect(end <= after + slack)
    }
    #expect(tracer.activeSpans.isEmpty)
  }
}

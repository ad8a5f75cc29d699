import Metrics
import Prometheus
import Spool
import SpoolBench
import SpoolMetrics
import SpoolProfiling
import SpoolWorkloads

/// What a live store's observability costs per action: `counter` (one producer enqueueing
/// increments, the cheapest reducer there is) without instrumentation, as Spool's measurement,
/// beside the same store with each instrumentation attached, as baselines. A ratio is the
/// slowdown of that instrumentation; `1e9 / throughput` is its nanoseconds per action.
///
/// ```sh
/// cd Benchmarks && swift run -c release MetricsOverhead --rounds 3
/// ```
@main struct MetricsOverhead: SpoolBenchmarkCommand {
  static var workloads: [Workload] {
    [
      Workload(
        "metrics-overhead",
        summary: "counter bare, beside a no-op hook, swift-metrics, recorders (sampled or not)",
        defaultActions: 2_000_000,
        initialState: CounterFeature.State(),
        reducer: { CounterFeature() },
        driver: .enqueue { _ in .increment },
        check: { state, actions in
          guard state.count == actions else {
            throw WorkloadCheckError("count \(state.count), expected \(actions)")
          }
        },
        baselines: [
          instrumented("noop-instrumentation") { NoopInstrumentation() },
          instrumented("noop-metrics") {
            MetricsInstrumentation(store: "counter", factory: NOOPMetricsHandler.instance)
          },
          instrumented("prometheus") {
            MetricsInstrumentation(store: "counter", factory: prometheusFactory())
          },
          instrumented("prometheus-sampled-64") {
            MetricsInstrumentation(
              store: "counter", sampling: .oneIn(64), factory: prometheusFactory())
          },
          instrumented("prometheus-timers") {
            MetricsInstrumentation(
              store: "counter", recording: .timers, factory: prometheusFactory())
          },
          instrumented("latency-recorder") { LatencyRecorder() },
          instrumented("latency-recorder-sampled-64") { LatencyRecorder(sampling: .oneIn(64)) },
          instrumented("recorder+prom") {
            CombinedInstrumentation(
              LatencyRecorder<CounterFeature.Action>(),
              MetricsInstrumentation(store: "counter", factory: prometheusFactory()))
          },
        ]
      )
    ]
  }

  /// An instrumentation that records nothing but asks for every reduce's times: the floor
  /// that any instrumentation pays in the store (clock reads, the hook call).
  final class NoopInstrumentation: StoreInstrumentation, Sendable {
    func actionReduced(
      _ action: CounterFeature.Action, enqueuedAt: UInt64, startedAt: UInt64, endedAt: UInt64
    ) {}
    func effectStarted(by action: CounterFeature.Action, at time: UInt64) {}
    func effectEnded(
      by action: CounterFeature.Action, startedAt: UInt64, endedAt: UInt64,
      outcome: EffectOutcome
    ) {}
  }

  /// A factory on a registry of its own, with timer buckets fine enough for actions (its
  /// default buckets start at 5 ms), as SpoolMetrics' documentation wires it for
  /// `MetricsRecording.timers`.
  static func prometheusFactory() -> PrometheusMetricsFactory {
    var factory = PrometheusMetricsFactory(registry: PrometheusCollectorRegistry())
    let buckets: [Duration] = [
      .nanoseconds(100), .microseconds(1), .microseconds(10), .microseconds(100),
      .milliseconds(1), .milliseconds(10), .milliseconds(100),
    ]
    factory.durationHistogramBuckets[StoreMetricLabels.queueWait] = buckets
    factory.durationHistogramBuckets[StoreMetricLabels.reduce] = buckets
    return factory
  }

  /// The workload's store with `instrumentation` attached, driven the same way, checked the
  /// same way; the instrumentation is made before the clock starts.
  static func instrumented(
    _ name: String,
    _ instrumentation: @escaping @Sendable () -> some StoreInstrumentation<CounterFeature.Action>
  ) -> WorkloadBaseline {
    WorkloadBaseline(name) { context in
      let store = Store(
        initialState: CounterFeature.State(), instrumentation: instrumentation()
      ) {
        CounterFeature()
      }
      context.startMeasurement()
      var index = 0
      while index < context.actions {
        let end = min(index + 10_000, context.actions)
        while index < end {
          store.enqueue(.increment)
          index += 1
        }
        context.advance(by: 10_000)
      }
      await store.finish()
      let count = await store.state.count
      guard count == context.actions else {
        throw WorkloadCheckError("count \(count), expected \(context.actions)")
      }
    }
  }
}

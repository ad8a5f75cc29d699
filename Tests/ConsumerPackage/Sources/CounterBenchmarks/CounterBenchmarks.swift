import Counter
import SpoolBench

/// The package's benchmarks of its own feature, run as `spool bench` runs Spool's:
///
/// ```sh
/// swift run -c release CounterBenchmarks --rounds 3 --profile
/// ```
@main
struct CounterBenchmarks: SpoolBenchmarkCommand {
  static var workloads: [Workload] {
    [
      Workload(
        "counter-taps",
        summary: "one producer enqueues taps, every other one through an effect",
        defaultActions: 1_000_000,
        initialState: Counter.State(),
        reducer: { Counter() },
        driver: .enqueue { index in
          index.isMultiple(of: 2) ? .incrementButtonTapped : .incrementByEffectButtonTapped
        },
        check: { state, actions in
          guard state.count == actions else {
            throw WorkloadCheckError("counted \(state.count) taps, expected \(actions)")
          }
        },
        baselines: [
          WorkloadBaseline("raw-loop") { context in
            var state = Counter.State()
            let counter = Counter()
            for _ in 0..<context.actions {
              _ = counter.reduce(into: &state, action: .incrementButtonTapped)
            }
            guard state.count == context.actions else {
              throw WorkloadCheckError("counted \(state.count), expected \(context.actions)")
            }
          }
        ]
      )
    ]
  }
}

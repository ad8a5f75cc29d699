// README.md's "Your own benchmarks and metrics" examples, compiled here (CI builds this
// package; `ReadmeCodeBlockTests` in SpoolTests checks that every code block of README.md is
// in this file or in Tests/SpoolTests/ReadmeExampleTests.swift). When you change one, change
// the other. Run it as any SpoolBench command: `swift run -c release ReadmeExamples --list`.
import Metrics
import Prometheus
import Spool
import SpoolBench
import SpoolMetrics

/// The examples' feature: a cart that items are added to.
@Reducer
struct Cart {
  struct State: Equatable, Sendable {
    var items: [Int] = []
  }

  enum Action: Equatable, Sendable {
    case add(Int)
  }

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .add(let item):
      state.items.append(item)
      return .none
    }
  }
}

// --- README benchmark begins ---
@main struct CartBenchmarks: SpoolBenchmarkCommand {
  static var workloads: [Workload] {
    [Workload("cart", summary: "adds items", defaultActions: 1_000_000,
              initialState: Cart.State(), reducer: { Cart() }, driver: .enqueue { .add($0) })]
  }
}
// --- README benchmark ends ---

/// A live store whose metrics Prometheus scrapes (the registry's text, served on `/metrics`).
func liveCart(registry: PrometheusCollectorRegistry) -> Store<Cart.State, Cart.Action> {
  // --- README metrics begins ---
  MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
  let store = Store(initialState: Cart.State(),
                    instrumentation: MetricsInstrumentation<Cart.Action>(store: "cart")) { Cart() }
  // --- README metrics ends ---
  return store
}

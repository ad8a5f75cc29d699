import Dependencies
import SpoolCore
import SpoolProfiling

extension Workload {
  /// A workload of your own feature: how to build its store, how to drive it, how to check the
  /// result, and optional baselines measured in the same run.
  ///
  /// Each measurement builds a fresh store from `initialState` and `reducer` (as
  /// `Store(initialState:reducer:withDependencies:)` does; not measured), runs `driver`, awaits
  /// the store's `finish()`, stops the clock, and then checks: `check` gets the final state and
  /// the units the driver did, and an effect still running fails the run. With `--profile` the
  /// harness measures once more with a latency recorder attached for the per-action-case
  /// latencies; the throughput always comes from the run without it. Then each baseline runs.
  ///
  /// - Parameters:
  ///   - name: The name on the command line and of the report files (`checkout` writes
  ///     `spool-reports/checkout-<UTC timestamp>.json`); no `/`.
  ///   - summary: One line for `--list`: what it drives.
  ///   - defaultActions: The volume without `--actions`.
  ///   - initialState: The state each measurement starts from.
  ///   - reducer: The feature's reducer, built as in `Store`'s trailing closure.
  ///   - withDependencies: Overrides dependencies for the reducer and its effects.
  ///   - driver: How the store is driven: ``WorkloadDriver/enqueue(producers:_:)``,
  ///     ``WorkloadDriver/send(_:)`` or ``WorkloadDriver/custom(_:_:)``.
  ///   - check: Throws (a ``WorkloadCheckError``) when the final state is wrong for the units
  ///     done: a lost action fails the run instead of reporting a figure.
  ///   - baselines: The same work done other ways, for ratios.
  ///
  /// ```swift
  /// let checkout = Workload(
  ///   "checkout",
  ///   summary: "customers add items to one cart store",
  ///   defaultActions: 1_000_000,
  ///   initialState: Cart.State(),
  ///   reducer: { Cart() },
  ///   driver: .enqueue { index in .add(item: index) },
  ///   check: { state, actions in
  ///     guard state.items.count == actions else {
  ///       throw WorkloadCheckError("\(state.items.count) items, expected \(actions)")
  ///     }
  ///   }
  /// )
  /// ```
  @inlinable
  public init<State: Sendable, Action: Sendable, R: Reducer<State, Action> & SendableMetatype>(
    _ name: String,
    summary: String,
    defaultActions: Int,
    initialState: @autoclosure @escaping @Sendable () -> State,
    @ReducerBuilder<State, Action> reducer: @escaping @Sendable () -> R,
    withDependencies: (@Sendable (inout DependencyValues) -> Void)? = nil,
    driver: WorkloadDriver<State, Action>,
    check: @escaping @Sendable (_ state: State, _ actions: Int) throws -> Void = { _, _ in },
    baselines: [WorkloadBaseline] = []
  ) {
    // Built here, in the caller's module, where `R` is concrete: `Store.init` is inlinable and
    // specializes the store's reduce and enqueue paths for the reducer. Built inside this
    // module, generic over `R`, the store ran unspecialized, an order of magnitude slower per
    // action than the same store made in the user's module (`MetricsOverhead` in Benchmarks/).
    let makeStore: @Sendable ((any StoreInstrumentation<Action>)?) -> Store<State, Action> = {
      recorder in
      Store(
        initialState: initialState(), instrumentation: recorder, reducer: reducer,
        withDependencies: withDependencies.map { prepare in { prepare(&$0) } })
    }
    self.init(
      name, summary: summary, defaultActions: defaultActions, makeStore: makeStore,
      driver: driver, check: check, baselines: baselines)
  }

  /// The public initializer's body, with the store's construction specialized by the caller.
  @usableFromInline
  init<State: Sendable, Action: Sendable>(
    _ name: String,
    summary: String,
    defaultActions: Int,
    makeStore: @escaping @Sendable ((any StoreInstrumentation<Action>)?) -> Store<State, Action>,
    driver: WorkloadDriver<State, Action>,
    check: @escaping @Sendable (_ state: State, _ actions: Int) throws -> Void,
    baselines: [WorkloadBaseline]
  ) {
    self.init(name: name, summary: summary, defaultActions: defaultActions) { run in
      let spool = try await run.spool(Action.self) { recorder in
        let store = makeStore(recorder)
        let context = run.context(for: "spool")
        let units = try await driver.drive(store, context)
        await store.finish()
        let seconds = Double(context.elapsedNanoseconds()) / 1e9
        let state = await store.state
        try await Self.checking(context.label) { try check(state, units) }
        let running = store.runningEffectCount
        if running != 0 {
          throw WorkloadCheckError(
            measurement: context.label, problem: "\(running) effects still running after finish()")
        }
        return Measurement(name: "spool", actions: units, seconds: seconds)
      }
      var measured: [Measurement] = []
      for baseline in baselines {
        run.progress.begin(run.label(baseline.name), total: run.actions)
        let context = run.context(for: baseline.name)
        try await Self.checking(context.label) { try await baseline.body(context) }
        let seconds = Double(context.elapsedNanoseconds()) / 1e9
        measured.append(Measurement(name: baseline.name, actions: run.actions, seconds: seconds))
      }
      return [run.report(spool, baselines: measured, parameters: ["producer": driver.name])]
    }
  }

  /// Runs `body`, naming the measurement of a ``WorkloadCheckError`` it throws (one thrown by a
  /// user's check does not know its label).
  static func checking(_ label: String, _ body: () async throws -> Void) async throws {
    do {
      try await body()
    } catch var error as WorkloadCheckError {
      if error.measurement.isEmpty { error.measurement = label }
      throw error
    }
  }
}

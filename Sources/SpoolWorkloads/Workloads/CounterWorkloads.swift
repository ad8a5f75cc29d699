import SpoolCore
import SpoolBench
import SpoolProfiling

/// `counter`, `counter-send` and `fan-in`: the store's own cost per action, on the cheapest
/// feature there is (``CounterFeature``).
enum CounterWorkloads {
  /// `task-per-action` starts one task per action; past this many, it only adds minutes.
  static let taskPerActionLimit = 500_000

  /// `counter`: one synchronous producer calls `enqueue` for every action, then awaits
  /// `finish()`. The memory figure of the report is this run's peak RSS.
  static let counter = Workload(
    name: "counter",
    summary: "one producer enqueues increments into a counter store",
    defaultActions: 10_000_000
  ) { run in
    let actions = run.actions
    let spool = try await run.spool(CounterFeature.Action.self) { recorder in
      try await enqueueIncrements(run, actions: actions, instrumentation: recorder)
    }
    let baselines = try await counterBaselines(run, actions: actions)
    return [
      run.report(
        spool, baselines: baselines,
        parameters: ["producer": "enqueue", "taskPerActionActions": taskPerActionText(actions)])
    ]
  }

  /// `counter-send`: the same reducer, driven by `await send` from one task.
  static let counterSend = Workload(
    name: "counter-send",
    summary: "one task awaits send for every increment",
    defaultActions: 2_000_000
  ) { run in
    let actions = run.actions
    let spool = try await run.spool(CounterFeature.Action.self) { recorder in
      let store = Store(initialState: CounterFeature.State(), instrumentation: recorder) {
        CounterFeature()
      }
      let result = await Measurement.time("spool", actions: actions) {
        var index = 0
        while index < actions {
          let end = min(index + ReducerBaselines.chunk, actions)
          while index < end {
            await store.send(.increment)
            index += 1
          }
          run.progress.advance(by: ReducerBaselines.chunk)
        }
      }
      try checkCount(await store.state.count, expected: actions, run.label("spool"))
      return result
    }
    let baselines = try await counterBaselines(run, actions: actions)
    return [
      run.report(
        spool, baselines: baselines,
        parameters: ["producer": "await send", "taskPerActionActions": taskPerActionText(actions)])
    ]
  }

  /// `fan-in`: `--producers` tasks enqueue concurrently, each its own range of values; the
  /// count and the checksum of the values prove that no action was lost or duplicated.
  static let fanIn = Workload(
    name: "fan-in",
    summary: "N producers enqueue concurrently into one counter store",
    defaultActions: 4_000_000
  ) { run in
    let producers = max(1, run.options.producers)
    let actions = run.actions / producers * producers
    let spool = try await run.spool(CounterFeature.Action.self) { recorder in
      try await enqueueValues(run, actions: actions, producers: producers, recorder: recorder)
    }
    let verify = verifyValues(actions: actions)
    var baselines: [Measurement] = []
    baselines.append(
      try await ReducerBaselines.plainActor(
        run, reducer: CounterFeature(), initialState: CounterFeature.State(), actions: actions,
        producers: producers, makeAction: { .add($0) }, verify: verify))
    baselines.append(
      try await ReducerBaselines.lockedClass(
        run, reducer: CounterFeature(), initialState: CounterFeature.State(), actions: actions,
        producers: producers, makeAction: { .add($0) }, verify: verify))
    // Spool itself with one producer and the same volume: the figure fan-in must not fall
    // below.
    run.progress.begin(run.label("spool-1-producer"), total: actions)
    var single = try await enqueueValues(run, actions: actions, producers: 1, recorder: nil)
    single.name = "spool-1-producer"
    baselines.append(single)
    return [
      run.report(spool, baselines: baselines, parameters: ["producers": String(producers)])
    ]
  }

  /// Spool's `enqueue` from one synchronous producer, until the store has reduced everything.
  static func enqueueIncrements(
    _ run: WorkloadRun, actions: Int,
    instrumentation: (any StoreInstrumentation<CounterFeature.Action>)?
  ) async throws -> Measurement {
    let store = Store(initialState: CounterFeature.State(), instrumentation: instrumentation) {
      CounterFeature()
    }
    let result = await Producers.enqueue(.increment, times: actions, into: store, run)
    try checkCount(await store.state.count, expected: actions, run.label("spool"))
    return result
  }

  /// How many actions a `fan-in` producer enqueues between two yields: the largest ring of
  /// the store's queue (`StoreOptions.queueCapacity`'s default).
  static let yieldInterval = 1_024

  /// Spool's `enqueue` of `.add(value)` from `producers` concurrent tasks.
  static func enqueueValues(
    _ run: WorkloadRun, actions: Int, producers: Int,
    recorder: LatencyRecorder<CounterFeature.Action>?
  ) async throws -> Measurement {
    let store = Store(initialState: CounterFeature.State(), instrumentation: recorder) {
      CounterFeature()
    }
    let share = actions / producers
    let result = await Measurement.time("spool", actions: share * producers) {
      await withTaskGroup(of: Void.self) { group in
        for producer in 0..<producers {
          group.addTask {
            var index = 0
            while index < share {
              let end = min(index + ReducerBaselines.chunk, share)
              while index < end {
                store.enqueue(.add(producer &* share &+ index))
                index += 1
                // A producer on the cooperative pool that never suspends holds a pool thread
                // (there are as many as cores) until it is done, and the store's drain loop
                // waits for a thread while the producers spill into the queue's overflow.
                // CPU-bound tasks should yield now and then; these do once per queue capacity
                // (in `spool bench fan-in`, producers that never yield reach a fraction of one
                // producer's throughput, and yielding less often than this is less steady).
                if index & (yieldInterval - 1) == 0 { await Task.yield() }
              }
              run.progress.advance(by: ReducerBaselines.chunk)
            }
          }
        }
      }
      await store.finish()
    }
    try verifyValues(actions: share * producers)(await store.state, run.label("spool"))
    return result
  }

  /// The count must be `actions` and the sum that of `0..<actions`: each value once.
  static func verifyValues(actions: Int) -> ReducerBaselines.Verify<CounterFeature.State> {
    { state, measurement in
      try checkCount(state.count, expected: actions, measurement)
      let expected = actions &* (actions &- 1) / 2
      try check(
        state.sum == expected, measurement,
        "checksum \(state.sum), expected \(expected): an action was lost or duplicated")
    }
  }

  /// `raw-loop`, `plain-actor`, `locked-class`, `locked-class+task-local` and `task-per-action`
  /// on increments.
  static func counterBaselines(_ run: WorkloadRun, actions: Int) async throws -> [Measurement] {
    let reducer = CounterFeature()
    let initial = CounterFeature.State()
    func verify(_ expected: Int) -> ReducerBaselines.Verify<CounterFeature.State> {
      { state, measurement in try checkCount(state.count, expected: expected, measurement) }
    }
    let taskActions = min(actions, taskPerActionLimit)
    return [
      try await ReducerBaselines.rawLoop(
        run, reducer: reducer, initialState: initial, actions: actions,
        makeAction: { _ in .increment }, verify: verify(actions)),
      try await ReducerBaselines.plainActor(
        run, reducer: reducer, initialState: initial, actions: actions,
        makeAction: { _ in .increment }, verify: verify(actions)),
      try await ReducerBaselines.lockedClass(
        run, reducer: reducer, initialState: initial, actions: actions,
        makeAction: { _ in .increment }, verify: verify(actions)),
      try await ReducerBaselines.lockedClass(
        run, reducer: reducer, initialState: initial, actions: actions, lookingUpTaskLocal: true,
        makeAction: { _ in .increment }, verify: verify(actions)),
      try await ReducerBaselines.taskPerAction(
        run, reducer: reducer, initialState: initial, actions: taskActions,
        makeAction: { _ in .increment }, verify: verify(taskActions)),
    ]
  }

  static func taskPerActionText(_ actions: Int) -> String {
    String(min(actions, taskPerActionLimit))
  }
}

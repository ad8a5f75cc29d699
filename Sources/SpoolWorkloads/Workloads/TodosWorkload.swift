import SpoolCore
import SpoolBench
import SpoolProfiling

/// `todos`: ``TodosFeature`` with 10,000 rows receiving row actions for pseudo-random rows
/// through `enqueue`. Beside the usual baselines (the same reducer at 10,000 rows), the
/// `spool-1000-rows` figure is Spool with 1,000 rows: the two must be about equal, since a
/// row action costs O(1) whatever the row count.
enum TodosWorkload {
  static let rows = 10_000
  static let smallRows = 1_000

  static let workload = Workload(
    name: "todos",
    summary: "a forEach list of 10,000 rows receiving row actions",
    defaultActions: 100_000
  ) { run in
    let actions = run.actions
    let spool = try await run.spool(TodosFeature.Action.self) { recorder in
      try await toggleRows(run, "spool", rows: rows, actions: actions, recorder: recorder)
    }
    let reducer = TodosFeature()
    let initial = TodosFeature.State(rows: rows)
    let large = rows
    var baselines = [
      try await ReducerBaselines.rawLoop(
        run, reducer: reducer, initialState: initial, actions: actions,
        makeAction: { action($0, rows: large) }, verify: verify(actions)),
      try await ReducerBaselines.plainActor(
        run, reducer: reducer, initialState: initial, actions: actions,
        makeAction: { action($0, rows: large) }, verify: verify(actions)),
      try await ReducerBaselines.lockedClass(
        run, reducer: reducer, initialState: initial, actions: actions,
        makeAction: { action($0, rows: large) }, verify: verify(actions)),
    ]
    run.progress.begin(run.label("spool-1000-rows"), total: actions)
    baselines.append(
      try await toggleRows(
        run, "spool-1000-rows", rows: smallRows, actions: actions, recorder: nil))
    return [
      run.report(
        spool, baselines: baselines,
        parameters: ["rows": String(rows), "comparisonRows": String(smallRows)])
    ]
  }

  /// The action for the `index`th toggle: a row spread pseudo-randomly over the list.
  static func action(_ index: Int, rows: Int) -> TodosFeature.Action {
    .rows(.element(id: Int(UInt(index) &* 2_654_435_761 % UInt(rows)), action: .toggle))
  }

  static func toggleRows(
    _ run: WorkloadRun, _ name: String, rows: Int, actions: Int,
    recorder: LatencyRecorder<TodosFeature.Action>?
  ) async throws -> Measurement {
    let store = Store(initialState: TodosFeature.State(rows: rows), instrumentation: recorder) {
      TodosFeature()
    }
    let result = await Measurement.time(name, actions: actions) {
      var index = 0
      while index < actions {
        let end = min(index + ReducerBaselines.chunk, actions)
        while index < end {
          store.enqueue(action(index, rows: rows))
          index += 1
        }
        run.progress.advance(by: ReducerBaselines.chunk)
      }
      await store.finish()
    }
    try verify(actions)(await store.state, run.label(name))
    return result
  }

  /// Every action reached the list and exactly one row.
  static func verify(_ actions: Int) -> ReducerBaselines.Verify<TodosFeature.State> {
    { state, measurement in
      try checkCount(state.rowActions, expected: actions, measurement)
      let edits = state.rows.reduce(0) { $0 + $1.edits }
      try checkCount(edits, expected: actions, measurement, what: "row actions")
    }
  }
}

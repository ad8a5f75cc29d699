import Dependencies
import SpoolCore
import SpoolBench
import Synchronization

/// `cancellation`: every action restarts a long effect with `cancelInFlight`; at the end,
/// `.stop` and `finish()`, and the run must end with zero live effects and none fired.
///
/// One unit is one restart (one cancellation and one new effect). The measured time includes
/// waiting for every cancelled effect to end. The default volume is 20,000, which keeps a run
/// short. A restart's cost must not grow with the restarts before it (it did until cancelled
/// tasks left their ID at once, `EffectRegistryStateMachine.takeTasks(for:)`): a run with a
/// larger `--actions` must keep the same throughput.
enum CancellationWorkload {
  static let workload = Workload(
    name: "cancellation",
    summary: "each action restarts a long effect with cancelInFlight",
    defaultActions: 20_000
  ) { run in
    let actions = run.actions
    // What the unprofiled run left behind, for the report.
    let liveAtEnd = Mutex(-1)
    let spool = try await run.spool(CancellationFeature.Action.self) { recorder in
      let store = Store(initialState: CancellationFeature.State(), instrumentation: recorder) {
        CancellationFeature()
      } withDependencies: {
        // Explicit, so that the workload runs the same under a test runner (whose default
        // clock is unimplemented) as in `spool bench`.
        $0.continuousClock = ContinuousClock()
      }
      let result = await Measurement.time("spool", actions: actions) {
        var index = 0
        while index < actions {
          let end = min(index + ReducerBaselines.chunk, actions)
          while index < end {
            store.enqueue(.restart(index))
            index += 1
          }
          run.progress.advance(by: ReducerBaselines.chunk)
        }
        store.enqueue(.stop)
        await store.finish()
      }
      let state = await store.state
      let label = run.label("spool")
      if recorder == nil { liveAtEnd.withLock { $0 = store.runningEffectCount } }
      try checkCount(state.restarts, expected: actions, label)
      try check(state.fired == 0, label, "\(state.fired) long effects fired; none should")
      try check(
        store.runningEffectCount == 0, label,
        "\(store.runningEffectCount) effects still live after stop and finish()")
      return result
    }
    let plain = try await restartingBaseline(run, actions: actions, readingClockDependency: false)
    let withDependency = try await restartingBaseline(
      run, actions: actions, readingClockDependency: true)
    return [
      run.report(
        spool, baselines: [plain, withDependency],
        parameters: ["liveEffectsAtEnd": String(liveAtEnd.withLock { $0 })])
    ]
  }

  /// `plain-actor` (`RestartingActor` sleeping with `Task.sleep`) or, `readingClockDependency`,
  /// `plain-actor+dependency` (sleeping on the clock it reads as the reducer does, from the
  /// same dependencies as the store: `ContinuousClock()`).
  static func restartingBaseline(
    _ run: WorkloadRun, actions: Int, readingClockDependency: Bool
  ) async throws -> Measurement {
    let name = readingClockDependency ? "plain-actor+dependency" : "plain-actor"
    let ended = Countdown()
    let plain = withDependencies {
      $0.continuousClock = ContinuousClock()
    } operation: {
      RestartingActor(ended: ended, readingClockDependency: readingClockDependency)
    }
    let baseline = await run.baseline(name, actions: actions) {
      var index = 0
      while index < actions {
        let end = min(index + ReducerBaselines.chunk, actions)
        while index < end {
          await plain.restart(index)
          index += 1
        }
        run.progress.advance(by: ReducerBaselines.chunk)
      }
      await plain.stop()
      await ended.wait(until: actions)
    }
    try checkCount(await plain.restarts, expected: actions, run.label(name))
    return baseline
  }
}

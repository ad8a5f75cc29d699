import SpoolCore
import SpoolBench
import SpoolProfiling

/// `effects`: every action starts a `.run` effect that sends a response back.
///
/// The producer enqueues requests in windows of ``window`` and awaits `finish()` after each,
/// so that at most a window of effects is alive at once (memory stays bounded, as in a server
/// that limits its requests in flight). One unit is one round trip: request reduced, effect
/// run, response reduced.
enum EffectsWorkload {
  static let window = 1_000

  static let workload = Workload(
    name: "effects",
    summary: "each action starts a .run effect that sends a response back",
    defaultActions: 300_000
  ) { run in
    let actions = run.actions
    let expectedSum = actions &* (actions &- 1) / 2
    let spool = try await run.spool(EffectsFeature.Action.self) { recorder in
      let store = Store(initialState: EffectsFeature.State(), instrumentation: recorder) {
        EffectsFeature()
      }
      let result = await Measurement.time("spool", actions: actions) {
        var start = 0
        while start < actions {
          let end = min(start + window, actions)
          for value in start..<end { store.enqueue(.request(value)) }
          await store.finish()
          run.progress.advance(by: end - start)
          start = end
        }
      }
      let state = await store.state
      try checkCount(state.responses, expected: actions, run.label("spool"), what: "responses")
      try check(state.sum == expectedSum, run.label("spool"), "response checksum mismatch")
      try check(
        store.runningEffectCount == 0, run.label("spool"),
        "\(store.runningEffectCount) effects still running after finish()")
      return result
    }
    let replies = Countdown()
    let plain = TaskPerRequestActor(replies: replies)
    let baseline = await run.baseline("task-per-action", actions: actions) {
      var start = 0
      while start < actions {
        let end = min(start + window, actions)
        for value in start..<end { await plain.request(value) }
        await replies.wait(until: end)
        run.progress.advance(by: end - start)
        start = end
      }
    }
    let figures = await plain.figures
    try checkCount(
      figures.responses, expected: actions, run.label("task-per-action"), what: "responses")
    try check(figures.sum == expectedSum, run.label("task-per-action"), "checksum mismatch")
    return [
      run.report(spool, baselines: [baseline], parameters: ["window": String(window)])
    ]
  }
}

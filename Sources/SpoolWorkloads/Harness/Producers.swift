import SpoolCore
import SpoolBench

/// How the workloads drive a store.
enum Producers {
  /// Spool's `enqueue` of `action`, `actions` times, from one synchronous producer, then
  /// `finish()`: the measurement covers everything up to the last action's reduce.
  ///
  /// ```swift
  /// let measurement = await Producers.enqueue(.increment, times: 1_000, into: store, run)
  /// ```
  static func enqueue<State, Action>(
    _ action: Action, times actions: Int, into store: Store<State, Action>, _ run: WorkloadRun
  ) async -> Measurement {
    await Measurement.time("spool", actions: actions) {
      var index = 0
      while index < actions {
        let end = min(index + ReducerBaselines.chunk, actions)
        while index < end {
          store.enqueue(action)
          index += 1
        }
        run.progress.advance(by: ReducerBaselines.chunk)
      }
      await store.finish()
    }
  }
}

import SpoolCore
import SpoolBench
import SpoolProfiling

/// `instrumentation`: what a ``LatencyRecorder`` costs a store, on the cheapest reducer there
/// is (``CounterFeature``) and on one that works for about a microsecond per action
/// (``BusyFeature``). Each is driven through `enqueue` from one producer, without a recorder,
/// with one that times every action (the `spool-instrumented` baseline) and with one that
/// times one action in ``sampleInterval`` (`spool-sampled`), so `spool/baseline` is the factor
/// each kind of instrumentation slows the store down by. The counter is also driven with
/// ``ClockFloorInstrumentation`` (`spool-clock-only`): the store reads the clock for every
/// action and the instrumentation records nothing, so that baseline is the floor any recorder
/// that times every action stands on, and the rest of `spool-instrumented`'s cost is the
/// recorder's own.
///
/// Each side is run ``rounds`` times, alternating, and the fastest run of each side counts: on
/// a shared machine the fastest run is the one least disturbed by other work.
enum InstrumentationWorkload {
  static let rounds = 3
  /// The work per action of the busy reducer.
  static let workNanoseconds = 1_000
  /// The busy reducer gets this share of the actions (each costs about ``workNanoseconds``,
  /// many times a counter action).
  static let workShare = 10
  /// The sampled recorder times one action in this many.
  static let sampleInterval = 64

  static let workload = Workload(
    name: "instrumentation",
    summary: "counter and a 1 µs reducer, without and with a latency recorder",
    defaultActions: 2_000_000
  ) { run in
    let actions = run.actions
    let counter = try await alternate(
      run, "counter", actions: actions, clockFloor: ClockFloorInstrumentation()
    ) { recorder in
      try await CounterWorkloads.enqueueIncrements(run, actions: actions, instrumentation: recorder)
    }

    let iterations = BusyFeature.iterations(forNanoseconds: workNanoseconds)
    let workActions = max(1, actions / workShare)
    let rawLoop = try await ReducerBaselines.rawLoop(
      run, reducer: BusyFeature(iterations: iterations), initialState: BusyFeature.State(),
      actions: workActions, makeAction: { _ in .work },
      verify: { state, label in try checkCount(state.count, expected: workActions, label) })
    let work = try await alternate(run, "work", actions: workActions) { recorder in
      try await enqueueWork(run, actions: workActions, iterations: iterations, recorder: recorder)
    }
    let rawNanoseconds = 1e9 / max(rawLoop.throughputPerSecond, 1)
    return [
      run.report(
        name: "instrumentation-counter", counter.plain,
        baselines: [counter.instrumented, counter.sampled] + [counter.clockOnly].compactMap { $0 },
        parameters: [
          "rounds": String(rounds), "producer": "enqueue",
          "sampleInterval": String(sampleInterval),
        ]),
      run.report(
        name: "instrumentation-work", work.plain,
        baselines: [rawLoop, work.instrumented, work.sampled],
        parameters: [
          "rounds": String(rounds), "producer": "enqueue",
          "sampleInterval": String(sampleInterval),
          "targetNanosecondsPerAction": String(workNanoseconds),
          "iterations": String(iterations),
          "rawLoopNanosecondsPerAction": String(Int(rawNanoseconds.rounded())),
        ]),
    ]
  }

  /// Runs `drive` without a recorder, with one that times every action and with a sampled
  /// one (and with `clockFloor`, when given), ``rounds`` times each, alternating; returns the
  /// fastest of each as Spool's measurement, the `spool-instrumented` baseline, the
  /// `spool-sampled` one and the `spool-clock-only` one.
  static func alternate<Action: Sendable>(
    _ run: WorkloadRun, _ label: String, actions: Int,
    clockFloor: ClockFloorInstrumentation<Action>? = nil,
    _ drive: (_ instrumentation: (any StoreInstrumentation<Action>)?) async throws -> Measurement
  ) async throws -> (
    plain: SpoolMeasurement, instrumented: Measurement, sampled: Measurement,
    clockOnly: Measurement?
  ) {
    var plain: SpoolMeasurement?
    var instrumented: Measurement?
    var sampled: Measurement?
    var clockOnly: Measurement?
    for _ in 0..<rounds {
      let measured = try await run.spool(Action.self, name: label) { recorder in
        try await drive(recorder)
      }
      if plain.map({ measured.measurement.seconds < $0.measurement.seconds }) ?? true {
        plain = measured
      }
      run.progress.begin(run.label("\(label) (instrumented)"), total: actions)
      var recorded = try await drive(LatencyRecorder<Action>(traceCapacity: 1_024))
      recorded.name = "spool-instrumented"
      if instrumented.map({ recorded.seconds < $0.seconds }) ?? true {
        instrumented = recorded
      }
      run.progress.begin(run.label("\(label) (sampled)"), total: actions)
      var sampledRun = try await drive(
        LatencyRecorder<Action>(traceCapacity: 1_024, sampling: .oneIn(sampleInterval)))
      sampledRun.name = "spool-sampled"
      if sampled.map({ sampledRun.seconds < $0.seconds }) ?? true {
        sampled = sampledRun
      }
      if let clockFloor {
        run.progress.begin(run.label("\(label) (clock only)"), total: actions)
        var floorRun = try await drive(clockFloor)
        floorRun.name = "spool-clock-only"
        if clockOnly.map({ floorRun.seconds < $0.seconds }) ?? true {
          clockOnly = floorRun
        }
      }
    }
    guard let plain, let instrumented, let sampled else {
      preconditionFailure("Internal inconsistency: \(rounds) rounds measured nothing")
    }
    return (plain, instrumented, sampled, clockOnly)
  }

  /// ``BusyFeature``'s work through `enqueue` from one producer, until all is reduced.
  static func enqueueWork(
    _ run: WorkloadRun, actions: Int, iterations: Int,
    recorder: (any StoreInstrumentation<BusyFeature.Action>)?
  ) async throws -> Measurement {
    let store = Store(initialState: BusyFeature.State(), instrumentation: recorder) {
      BusyFeature(iterations: iterations)
    }
    let result = await Producers.enqueue(.work, times: actions, into: store, run)
    try checkCount(await store.state.count, expected: actions, run.label("spool"))
    return result
  }
}

/// An instrumentation that times every action and records nothing: what a store pays for the
/// clock reads and the call alone, whatever a recorder then does with the times.
final class ClockFloorInstrumentation<Action: Sendable>: StoreInstrumentation, Sendable {
  func actionReduced(_ action: Action, enqueuedAt: UInt64, startedAt: UInt64, endedAt: UInt64) {}
  func effectStarted(by action: Action, at time: UInt64) {}
  func effectEnded(by action: Action, startedAt: UInt64, endedAt: UInt64, outcome: EffectOutcome) {}
}

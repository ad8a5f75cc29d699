#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif
import SpoolCore
import SpoolBench
import SpoolIO
import SpoolJournal
import SpoolProfiling

/// `journal`: what recording every action to an ``ActionJournal`` costs a store, on
/// ``CounterFeature`` (through `enqueue`, as the `counter` workload) and on ``EffectsFeature``
/// (as the `effects` workload), each without and with a ``JournalRecorder``. The recorded run is
/// the `spool-journaled` baseline, so `spool/baseline` is the factor the journal slows the store
/// down by. Both features' actions adopt `JournalCodable`, so this measures the
/// recorder's compact path. Not in the standard set: it writes a journal of every action to a
/// temporary folder (11 to 13 bytes per counter action), removed afterwards.
///
/// Each side runs ``rounds`` times, alternating, and the fastest run of each counts. The first
/// recorded journal of each feature is then replayed into a fresh store (effects discarded) and
/// must reproduce the recorded final state; the replay's throughput is a report parameter.
enum JournalWorkload {
  static let rounds = 3

  static let workload = Workload(
    name: "journal",
    summary: "counter and effects, without and with an action journal recording them",
    defaultActions: 2_000_000,
    isStandard: false
  ) { run in
    let folder = try TemporaryFolder(run.label("journal"))
    defer { folder.remove() }
    let actions = run.actions

    let counterPath = folder.path + "/counter"
    var counterReplay: Double?
    let counter = try await alternate(run, "counter", actions: actions) { recorder, journaled in
      let journal =
        journaled
        ? try ActionJournal<CounterFeature.Action>.recording(
          to: counterPath, forwardingTo: recorder)
        : nil
      let store = Store(
        initialState: CounterFeature.State(),
        instrumentation: journal ?? recorder
      ) {
        CounterFeature()
      }
      let result = await Producers.enqueue(.increment, times: actions, into: store, run)
      let state = await store.state
      try checkCount(state.count, expected: actions, run.label("spool"))
      if let journal {
        try await journal.finish(finalState: state)
        if counterReplay == nil {
          // The reducer itself, not `discardingEffects()`: it returns no effect, and a second
          // specialization of the counter's store (with `DiscardingEffects`) was merged by the
          // optimizer with the one `counter` measures, which then ran about 4% slower.
          counterReplay = try await replay(
            run, counterPath, CounterFeature.State(), reducer: CounterFeature())
        }
      }
      return result
    }

    let effectsPath = folder.path + "/effects"
    var effectsReplay: Double?
    let effects = try await alternate(run, "effects", actions: actions) { recorder, journaled in
      let journal =
        journaled
        ? try ActionJournal<EffectsFeature.Action>.recording(
          to: effectsPath, forwardingTo: recorder)
        : nil
      let store = Store(
        initialState: EffectsFeature.State(),
        instrumentation: journal ?? recorder
      ) {
        EffectsFeature()
      }
      let result = await Measurement.time("spool", actions: actions) {
        var start = 0
        while start < actions {
          let end = min(start + EffectsWorkload.window, actions)
          for value in start..<end { store.enqueue(.request(value)) }
          await store.finish()
          run.progress.advance(by: end - start)
          start = end
        }
      }
      let state = await store.state
      try checkCount(state.responses, expected: actions, run.label("spool"), what: "responses")
      if let journal {
        try await journal.finish(finalState: state)
        if effectsReplay == nil {
          effectsReplay = try await replayDiscardingEffects(
            run, effectsPath, EffectsFeature.State(), EffectsFeature())
        }
      }
      return result
    }

    func parameters(_ replay: Double?) -> [String: String] {
      [
        "rounds": String(rounds), "producer": "enqueue",
        "replayActionsPerSecond": String(Int((replay ?? 0).rounded())),
      ]
    }
    return [
      run.report(
        name: "journal-counter", counter.plain, baselines: [counter.journaled],
        parameters: parameters(counterReplay)),
      run.report(
        name: "journal-effects", effects.plain, baselines: [effects.journaled],
        parameters: parameters(effectsReplay).merging(
          ["window": String(EffectsWorkload.window)]) { $1 }),
    ]
  }

  /// Runs `drive` without and with a journal, ``rounds`` times each, alternating; returns the
  /// fastest of each as Spool's measurement and the `spool-journaled` baseline.
  static func alternate<Action: Sendable>(
    _ run: WorkloadRun, _ label: String, actions: Int,
    _ drive: (_ recorder: LatencyRecorder<Action>?, _ journaled: Bool) async throws
      -> Measurement
  ) async throws -> (plain: SpoolMeasurement, journaled: Measurement) {
    var plain: SpoolMeasurement?
    var journaled: Measurement?
    for _ in 0..<rounds {
      let measured = try await run.spool(Action.self, name: label) { recorder in
        try await drive(recorder, false)
      }
      if plain.map({ measured.measurement.seconds < $0.measurement.seconds }) ?? true {
        plain = measured
      }
      run.progress.begin(run.label("\(label) (journaled)"), total: actions)
      var recorded = try await drive(nil, true)
      recorded.name = "spool-journaled"
      if journaled.map({ recorded.seconds < $0.seconds }) ?? true {
        journaled = recorded
      }
    }
    guard let plain, let journaled else {
      preconditionFailure("Internal inconsistency: \(rounds) rounds measured nothing")
    }
    return (plain, journaled)
  }

  /// Replays the journal at `path` into a fresh store of `reducer`, which returns no effect
  /// (the journal holds what effects sent); fails unless it reproduced the recorded state.
  /// Returns the replay's actions per second.
  static func replay<R: Reducer & Sendable>(
    _ run: WorkloadRun, _ path: String, _ initialState: R.State, reducer: R
  ) async throws -> Double
  where R.State: Codable & Sendable, R.Action: Codable {
    let contents = try await ActionJournal<R.Action>(path: path).load()
    return try await verifiedRate(run, contents, Store(initialState: initialState) { reducer })
  }

  /// ``replay(_:_:_:reducer:)`` for a reducer with effects: they are discarded.
  static func replayDiscardingEffects<R: Reducer & Sendable>(
    _ run: WorkloadRun, _ path: String, _ initialState: R.State, _ reducer: R
  ) async throws -> Double
  where R.State: Codable & Sendable, R.Action: Codable {
    let contents = try await ActionJournal<R.Action>(path: path).load()
    let store = Store(initialState: initialState) { reducer.discardingEffects() }
    return try await verifiedRate(run, contents, store)
  }

  /// Replays `contents` into `store`; fails unless verified; actions per second.
  static func verifiedRate<State: Codable & Sendable, Action: Codable & Sendable>(
    _ run: WorkloadRun, _ contents: JournalContents<Action>, _ store: Store<State, Action>
  ) async throws -> Double {
    let result = try await contents.replay(into: store)
    guard case .verified = result.verification else {
      throw WorkloadCheckError(
        measurement: run.label("replay"), problem: "not verified: \(result.verification)")
    }
    let seconds = Double(result.elapsed.components.seconds)
      + Double(result.elapsed.components.attoseconds) / 1e18
    return seconds > 0 ? Double(result.actions) / seconds : 0
  }

  /// A fresh folder under the temporary directory, removed with the files in it.
  struct TemporaryFolder {
    let path: String

    init(_ label: String) throws {
      let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
      var template = Array("\(base)/spool-journal-XXXXXX".utf8CString)
      let created = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) != nil }
      guard created else {
        throw WorkloadCheckError(
          measurement: label, problem: "cannot create a folder in \(base) (errno \(errno))")
      }
      path = String(cString: template.withUnsafeBufferPointer { $0.baseAddress! })
    }

    func remove() {
      Self.removeFiles(in: path)
      rmdir(path)
    }

    /// Removes the files directly in the folder at `path`.
    static func removeFiles(in path: String) {
      if let directory = opendir(path) {
        for name in FileOperations.entryNames(in: directory) where name != "." && name != ".." {
          unlink(path + "/" + name)
        }
        closedir(directory)
      }
    }
  }
}

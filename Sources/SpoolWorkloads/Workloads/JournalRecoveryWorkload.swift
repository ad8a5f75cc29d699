import SpoolBench
import SpoolCore
import SpoolJournal

/// `journal-recover`: what recovering a store from its journal costs, with and without a
/// snapshot. Two journals of the same N ``CounterFeature`` actions are recorded first (not
/// measured): one without a snapshot, one with a compacting snapshot before its last 1%.
/// Recovering the first replays N actions (`spool-full-replay`, the baseline); recovering the
/// second decodes the snapshot and replays N/100 (the measurement), in the same run; both
/// check their state is the recorded one. `spool/baseline` is how many times faster the
/// snapshot makes recovery. Not in the standard set: it writes to a temporary folder.
///
/// Parameters: `bytesReadFull` and `bytesReadSnapshot`, the bytes of journal each recovery
/// read; `rounds` recoveries of each are timed and the fastest kept.
enum JournalRecoveryWorkload {
  static let rounds = 3

  static let workload = Workload(
    name: "journal-recover",
    summary: "recover a journaled counter of N actions, from a snapshot or from the start",
    defaultActions: 1_000_000,
    isStandard: false
  ) { run in
    let folder = try JournalWorkload.TemporaryFolder(run.label("journal-recover"))
    defer { folder.remove() }
    let actions = run.actions
    let tail = max(actions / 100, 1)
    let fullPath = folder.path + "/full"
    let snapshotPath = folder.path + "/snapshot"
    let expected = try await record(fullPath, actions: actions, snapshotBefore: nil)
    _ = try await record(snapshotPath, actions: actions, snapshotBefore: tail)

    var fullBytes = 0
    var full: Measurement?
    for _ in 0..<rounds {
      run.progress.begin(run.label("spool-full-replay"), total: actions)
      var bytes = 0
      let measured = try await Measurement.time("spool-full-replay", actions: actions) {
        bytes = try await recover(fullPath, expected: expected, run)
      }
      fullBytes = bytes
      if full.map({ measured.seconds < $0.seconds }) ?? true { full = measured }
    }
    var snapshotBytes = 0
    let fromSnapshot = try await run.spool(CounterFeature.Action.self) { _ in
      var best: Measurement?
      for _ in 0..<rounds {
        let measured = try await Measurement.time("spool", actions: actions) {
          snapshotBytes = try await recover(snapshotPath, expected: expected, run)
        }
        if best.map({ measured.seconds < $0.seconds }) ?? true { best = measured }
      }
      return best ?? Measurement(name: "spool", actions: actions, seconds: 0)
    }
    return [
      run.report(
        fromSnapshot, baselines: full.map { [$0] } ?? [],
        parameters: [
          "tailActions": String(tail),
          "bytesReadFull": String(fullBytes),
          "bytesReadSnapshot": String(snapshotBytes),
          "rounds": String(rounds),
        ])
    ]
  }

  /// Records `actions` `.add` actions to a journal at `path`, with a compacting snapshot
  /// before the last `snapshotBefore` when given; returns the final state.
  static func record(
    _ path: String, actions: Int, snapshotBefore tail: Int?
  ) async throws -> CounterFeature.State {
    let recorder = try ActionJournal<CounterFeature.Action>.recording(to: path)
    let store = Store(initialState: CounterFeature.State(), instrumentation: recorder) {
      CounterFeature()
    }
    let head = actions - (tail ?? 0)
    for index in 0..<head { store.enqueue(.add(index)) }
    await store.finish()
    if tail != nil { try await recorder.snapshot(of: store) }
    for index in head..<actions { store.enqueue(.add(index)) }
    await store.finish()
    let state = await store.state
    try await recorder.finish(finalState: state)
    return state
  }

  /// Recovers the journal at `path`, checks it verified to `expected`; returns bytes read.
  static func recover(
    _ path: String, expected: CounterFeature.State, _ run: WorkloadRun
  ) async throws -> Int {
    let recovery = try await ActionJournal<CounterFeature.Action>(path: path)
      .recover(initialState: CounterFeature.State()) { CounterFeature() }
    guard recovery.state == expected, case .verified = recovery.verification else {
      throw WorkloadCheckError(
        measurement: run.label(path), problem: "recovered \(recovery.state), not \(expected)")
    }
    return recovery.bytes
  }
}

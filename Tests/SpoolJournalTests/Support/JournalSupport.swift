#if canImport(Glibc)
  import Glibc
#endif
import SpoolCore
import Testing
@testable import SpoolIO
@testable import SpoolJournal

/// Runs a fresh `Ledger` store that records to a journal at `path`, enqueues `actions`,
/// waits for it, and finishes the journal with its final state.
func recordLedger(
  _ actions: [Ledger.Action],
  to path: String,
  configuration: JournalConfiguration = JournalConfiguration(),
  engine: IOEngine,
  next: (any StoreInstrumentation<Ledger.Action>)? = nil
) async throws -> (summary: JournalSummary, state: Ledger.State) {
  let recorder = try ActionJournal<Ledger.Action>.recording(
    to: path, configuration: configuration, engine: engine, forwardingTo: next)
  let store = Store(initialState: Ledger.State(), instrumentation: recorder) { Ledger() }
  for action in actions { store.enqueue(action) }
  await store.finish()
  let state = await store.state
  let summary = try await recorder.finish(finalState: state)
  return (summary, state)
}

/// Records 3,000 `.add` actions into 4 KiB files (about 19 of them), finished.
func recordRotatingLedger(
  to path: String, engine: IOEngine
) async throws -> (actions: [Ledger.Action], summary: JournalSummary, state: Ledger.State) {
  let actions = (0..<3_000).map { Ledger.Action.add($0) }
  let configuration = JournalConfiguration(maxFileBytes: 4_096, maxFiles: 100, bufferBytes: 4_096)
  let (summary, state) = try await recordLedger(
    actions, to: path, configuration: configuration, engine: engine)
  return (actions, summary, state)
}

/// A fresh store for replaying a `Ledger` journal: effects discarded.
func replayStore() -> Store<Ledger.State, Ledger.Action> {
  Store(initialState: Ledger.State()) { Ledger().discardingEffects() }
}

/// The bytes of the file at `path`.
func fileBytes(_ path: String) -> [UInt8] {
  guard let file = fopen(path, "rb") else { return [] }
  defer { fclose(file) }
  var bytes: [UInt8] = []
  var buffer = [UInt8](repeating: 0, count: 65_536)
  while true {
    let count = fread(&buffer, 1, buffer.count, file)
    if count <= 0 { return bytes }
    bytes += buffer[0..<count]
  }
}

/// Replaces the file at `path` with `bytes`.
func writeFileBytes(_ path: String, _ bytes: [UInt8]) {
  guard let file = fopen(path, "wb") else { return }
  _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
  fclose(file)
}

/// The size of a journal file's header for `Action`.
func journalHeaderSize<Action>(_: Action.Type) -> Int {
  JournalFormat.header(
    index: 0, runID: 1, baseTime: 0, actionType: JournalFormat.typeName(Action.self),
    encoding: JournalActionEncoding.of(Action.self)
  ).count
}

/// The size of an end record: its header, kind, checksum, two varints, flags.
func endRecordSize(actions: Int, dropped: Int) -> Int {
  func varintSize(_ value: Int) -> Int {
    var size = 1
    var value = value >> 7
    while value > 0 {
      size += 1
      value >>= 7
    }
    return size
  }
  return JournalFormat.recordOverhead + 1 + 8 + varintSize(actions) + varintSize(dropped) + 1
}

extension SharedJournal where ID == Int, State == Ledger.State, Action == Ledger.Action {
  /// Recovers each of `producers` and expects its notes to be its own, in order (`"3/0"`,
  /// `"3/1"`, …); returns how many of the `acknowledged` notes no recovery holds.
  func lostNotes(
    of producers: [Int], acknowledged: [String], round: Int
  ) async throws -> Int {
    var lost = 0
    for producer in producers {
      let recovery = try await recover(for: producer, initialState: Ledger.State()) { Ledger() }
      let notes = recovery.state.notes
      #expect(notes == (0..<notes.count).map { "\(producer)/\($0)" }, "round \(round)")
      let recorded = Set(notes)
      lost += acknowledged.filter { $0.hasPrefix("\(producer)/") && !recorded.contains($0) }
        .count
    }
    return lost
  }
}

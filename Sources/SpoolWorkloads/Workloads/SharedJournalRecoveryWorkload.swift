#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif
import SpoolBench
import SpoolCore
import SpoolJournal

/// `journal-shared`: recovering one store among 10,000 from a ``SharedJournal``, beside
/// the same store's own journal in a folder of per-store journals (what `JournalDirectory`
/// keeps). N ``CounterFeature`` actions are recorded first (not measured), spread over 10,000
/// stores round-robin, so every store's records are interleaved with all the others': once
/// into one shared journal (default configuration), once into 10,000 per-store journals.
/// The shared journal is then opened again (its index files read: timed, in the parameters),
/// and one store recovered from each, `rounds` times, the fastest kept; both check the state.
/// `spool/baseline` is the shared journal's recovery speed over the per-store journal's.
///
/// Parameters: `sharedBytesRead` (the store's records only) and `directoryBytesRead` (its
/// journal file); `openBytesRead` and `indexBytes`, what opening the shared journal read;
/// `segmentBytes`, the shared journal's size; `indexWriteAmplification`, bytes of index
/// written per byte of segment. Not in the standard set: it writes to a temporary folder.
enum SharedJournalRecoveryWorkload {
  static let rounds = 3
  /// The stores: 10,000, or N/10 when N is below 100,000 (a quick run).
  static let maxStores = 10_000

  static let workload = Workload(
    name: "journal-shared",
    summary: "recover one store among 10,000 from a shared journal, or from its own journal",
    defaultActions: 1_000_000,
    isStandard: false
  ) { run in
    let folder = try JournalWorkload.TemporaryFolder(run.label("journal-shared"))
    defer { folder.remove() }
    let stores = min(maxStores, max(run.actions / 10, 2))
    let chosen = stores * 4_242 / maxStores
    let perStore = max(run.actions / stores, 1)
    let sharedPath = folder.path + "/shared"
    let perStoreFolder = folder.path + "/stores"
    guard mkdir(perStoreFolder, 0o755) == 0 else {
      throw WorkloadCheckError(
        measurement: run.label("setup"), problem: "cannot create \(perStoreFolder)")
    }
    defer { rmdir(perStoreFolder) }
    defer { JournalWorkload.TemporaryFolder.removeFiles(in: perStoreFolder) }
    try await recordShared(sharedPath, stores: stores, perStore: perStore)
    try await recordPerStore(perStoreFolder, stores: stores, perStore: perStore)
    var expected = CounterFeature.State()
    for round in 0..<perStore {
      _ = CounterFeature().reduce(into: &expected, action: .add(chosen * perStore + round))
    }

    let openClock = ContinuousClock()
    let openStart = openClock.now
    let journal = try await SharedJournal<Int, CounterFeature.State, CounterFeature.Action>
      .open(path: sharedPath)
    let openSeconds = (openClock.now - openStart) / .seconds(1)

    let directory = JournalDirectory<Int, CounterFeature.State, CounterFeature.Action>(
      folder: perStoreFolder)
    var directoryBytes = 0
    var perStoreBest: Measurement?
    for _ in 0..<rounds {
      let measured = try await Measurement.time("per-store-journal", actions: perStore) {
        let recovery = try await directory.journal(for: chosen).recover(
          initialState: CounterFeature.State()
        ) { CounterFeature() }
        guard recovery.state == expected else {
          throw WorkloadCheckError(
            measurement: run.label("per-store-journal"),
            problem: "recovered \(recovery.state), not \(expected)")
        }
        directoryBytes = recovery.bytes
      }
      if perStoreBest.map({ measured.seconds < $0.seconds }) ?? true { perStoreBest = measured }
    }
    var sharedBytes = 0
    let shared = try await run.spool(CounterFeature.Action.self) { _ in
      var best: Measurement?
      for _ in 0..<rounds {
        let measured = try await Measurement.time("spool", actions: perStore) {
          let recovery = try await journal.recover(
            for: chosen, initialState: CounterFeature.State()
          ) { CounterFeature() }
          guard recovery.state == expected else {
            throw WorkloadCheckError(
              measurement: run.label("spool"),
              problem: "recovered \(recovery.state), not \(expected)")
          }
          sharedBytes = recovery.bytesRead
        }
        if best.map({ measured.seconds < $0.seconds }) ?? true { best = measured }
      }
      return best ?? Measurement(name: "spool", actions: perStore, seconds: 0)
    }
    try await journal.close()
    let sizes = segmentAndIndexBytes(sharedPath, segments: journal.opening.segments)
    return [
      run.report(
        shared, baselines: perStoreBest.map { [$0] } ?? [],
        parameters: [
          "stores": String(stores),
          "actionsPerStore": String(perStore),
          "store": String(chosen),
          "sharedBytesRead": String(sharedBytes),
          "directoryBytesRead": String(directoryBytes),
          "openSeconds": String(openSeconds),
          "openBytesRead": String(journal.opening.bytesRead),
          "indexBytes": String(journal.opening.indexBytes),
          "scannedSegments": String(journal.opening.scannedSegments),
          "segments": String(journal.opening.segments),
          "segmentBytes": String(sizes.segments),
          "indexWriteAmplification": String(
            Double(sizes.indexes) / Double(max(sizes.segments, 1))),
          "rounds": String(rounds),
        ])
    ]
  }

  /// Records `perStore` `.add` actions for each of the stores, round-robin, into one shared
  /// journal, and closes it.
  static func recordShared(_ path: String, stores: Int, perStore: Int) async throws {
    let journal = try await SharedJournal<Int, CounterFeature.State, CounterFeature.Action>
      .open(path: path)
    var made: [Store<CounterFeature.State, CounterFeature.Action>] = []
    made.reserveCapacity(stores)
    for id in 0..<stores {
      made.append(
        try await journal.makeStore(for: id, initialState: CounterFeature.State()) {
          CounterFeature()
        })
    }
    for round in 0..<perStore {
      for id in 0..<stores { made[id].enqueue(.add(id * perStore + round)) }
    }
    for store in made { await store.finish() }
    try await journal.close()
  }

  /// Records the same actions into one journal per store (`folder/ID`, as `JournalDirectory`
  /// names them), each finished.
  ///
  /// A recording holds two descriptors (its file and its lock) until it finishes, so the
  /// stores are recorded ``perStoreBatch`` at a time: 10,000 at once needed 20,000, this
  /// machine kind's whole `RLIMIT_NOFILE` (EMFILE). Each file holds the same records either way.
  static func recordPerStore(_ folder: String, stores: Int, perStore: Int) async throws {
    for first in stride(from: 0, to: stores, by: perStoreBatch) {
      try await recordPerStore(
        folder, ids: first..<min(first + perStoreBatch, stores), perStore: perStore)
    }
  }

  /// How many per-store journals ``recordPerStore(_:stores:perStore:)`` keeps open at once.
  static let perStoreBatch = 1_000

  /// Records the actions of the stores `ids` into their own journals, all open at once.
  static func recordPerStore(_ folder: String, ids: Range<Int>, perStore: Int) async throws {
    // 4 KiB buffers: a batch of 1,000 recorders at the default 256 KiB would hold 256 MB.
    let configuration = JournalConfiguration(bufferBytes: 4_096)
    var recorders: [JournalRecorder<CounterFeature.Action>] = []
    var made: [Store<CounterFeature.State, CounterFeature.Action>] = []
    for id in ids {
      let recorder = try ActionJournal<CounterFeature.Action>.recording(
        to: "\(folder)/\(id)", configuration: configuration)
      recorders.append(recorder)
      made.append(
        Store(initialState: CounterFeature.State(), instrumentation: recorder) {
          CounterFeature()
        })
    }
    for round in 0..<perStore {
      for (offset, id) in ids.enumerated() { made[offset].enqueue(.add(id * perStore + round)) }
    }
    // Finished concurrently: each finish syncs its file, and the syncs overlap.
    try await withThrowingTaskGroup(of: Void.self) { group in
      for (store, recorder) in zip(made, recorders) {
        group.addTask {
          await store.finish()
          try await recorder.finish(finalState: await store.state)
        }
      }
      try await group.waitForAll()
    }
  }

  /// The bytes of the shared journal's segments and of its index files.
  static func segmentAndIndexBytes(_ path: String, segments: Int) -> (segments: Int, indexes: Int)
  {
    var sizes = (segments: 0, indexes: 0)
    for index in 0..<segments {
      var status = stat()
      if stat("\(path).\(index).journal", &status) == 0 { sizes.segments += Int(status.st_size) }
      if stat("\(path).\(index).index", &status) == 0 { sizes.indexes += Int(status.st_size) }
    }
    return sizes
  }
}

import SpoolCore
import SpoolBench
import SpoolIO
import SpoolProfiling

/// `file-io`: ``FileReaderFeature`` reading 4 KiB blocks of a cached file, with ``concurrency``
/// effects in flight all along (the producer queues the reads and starts ``concurrency``; each
/// completion starts the next, see ``FileReaderFeature/Action/queue(reads:blocks:)``).
///
/// Spool's run is a store made as any user makes one (`Store(initialState:)`), its effects
/// reading through SpoolIO (``IOFile/read(upTo:at:)``, which takes what the page cache holds on
/// the calling thread). Baselines: `blocking-io`, the same feature calling blocking `pread`
/// inside `.run`; `store-on-io-thread` (io_uring only), the same store and reads with the store
/// and its effects on the engine's event-loop thread
/// (``SpoolIO/Store/init(initialState:on:instrumentation:reducer:withDependencies:)``); and
/// `spoolio-direct`, SpoolIO's own read benchmark with the same concurrency and no store, the
/// floor of the I/O path. One unit is one block read.
enum FileIOWorkload {
  static let blockSize = 4_096
  static let blocks = 256
  static let concurrency = 64

  static let workload = Workload(
    name: "file-io",
    summary: "concurrent effects read blocks of a file through SpoolIO",
    defaultActions: 100_000
  ) { run in
    try await spoolAndBlocking(run, name: "file-io", direct: false) { path, engine in
      run.progress.begin(run.label("spoolio-direct"), total: run.actions)
      let direct = try await IOBenchmarks.fileReads(
        engine: engine, path: path, tasks: concurrency,
        readsPerTask: max(1, run.actions / concurrency), blockSize: blockSize,
        onLoopThread: true)
      return Measurement(
        name: "spoolio-direct", actions: direct.operations,
        seconds: Double(direct.elapsedNanoseconds) / 1e9)
    }
  }

  /// `file-io-cold`: the same reads past the page cache (`O_DIRECT`), as of a file larger than
  /// memory or read once: every read waits for the device. `blocking-io` calls blocking
  /// `pread` (also `O_DIRECT`) inside `.run`, and each call holds the thread it runs on (the
  /// store's, since effects start immediately) until the device answers; SpoolIO keeps up to
  /// ``concurrency`` reads in flight on the ring.
  ///
  /// Not in the standard set (run it by name): it measures the device as much as Spool. On a
  /// virtual disk that gains nothing from reads in flight, both sides are bound by the device
  /// and the ratio says little about Spool.
  /// The directory of the data file (`/tmp`) must be on a file system that supports
  /// `O_DIRECT` (not tmpfs); otherwise the run ends with the `open` error.
  static let cold = Workload(
    name: "file-io-cold",
    summary: "concurrent effects read blocks of a file past the page cache (O_DIRECT)",
    defaultActions: 20_000,
    isStandard: false
  ) { run in
    try await spoolAndBlocking(run, name: "file-io-cold", direct: true) { _, _ in nil }
  }

  /// Writes the workload's file, reads it through a store on SpoolIO (`spool`), then through
  /// the same feature calling blocking `pread` (`blocking-io`), then runs `extraBaseline` (with
  /// the file's path) if it gives one; `direct` opens both with `O_DIRECT`. One report.
  static func spoolAndBlocking(
    _ run: WorkloadRun, name: String, direct: Bool,
    extraBaseline: (String, IOEngine) async throws -> Measurement?
  ) async throws -> [WorkloadReport] {
    let engine = IOEngine.shared
    let path = try await WorkloadFile.prepare(
      name: name, blocks: blocks, blockSize: blockSize, engine: engine)
    defer { WorkloadFile.remove(path) }
    let reads = run.actions
    let file = try await IOFile.open(path, options: direct ? [.read, .direct] : .read, on: engine)
    // Each read moves the progress bar (one relaxed atomic add, on every side alike).
    let progress = run.progress
    let readBlock: @Sendable (UInt64) async throws -> Int = { offset in
      defer { progress.advance(by: 1) }
      return try await file.read(upTo: blockSize, at: offset).count
    }
    let spool = try await run.spool(FileReaderFeature.Action.self) { recorder in
      try await readBlocks(
        run, "spool", reads: reads, on: nil, instrumentation: recorder, readBlock: readBlock)
    }
    let blocking = try BlockingFile(path: path, direct: direct)
    run.progress.begin(run.label("blocking-io"), total: reads)
    var baselines = [
      try await readBlocks(
        run, "blocking-io", reads: reads, on: nil, instrumentation: nil
      ) { offset in
        defer { progress.advance(by: 1) }
        return try blocking.read(upTo: blockSize, at: offset).count
      }
    ]
    if engine.backend == .ioUring {
      run.progress.begin(run.label("store-on-io-thread"), total: reads)
      baselines.append(
        try await readBlocks(
          run, "store-on-io-thread", reads: reads, on: engine, instrumentation: nil,
          readBlock: readBlock))
    }
    try await file.close()
    if let extra = try await extraBaseline(path, engine) { baselines.append(extra) }
    var parameters = [
      "blockSize": String(blockSize), "concurrency": String(concurrency),
      "fileBytes": String(blocks * blockSize),
    ]
    if direct { parameters["openFlags"] = "O_DIRECT" }
    return [
      run.report(
        spool, baselines: baselines, parameters: parameters, ioBackend: engine.backend.rawValue)
    ]
  }

  /// Reads `reads` pseudo-random blocks, `concurrency` in flight, through a fresh store (on
  /// `engine`'s thread if one is given).
  static func readBlocks(
    _ run: WorkloadRun, _ name: String, reads: Int, on engine: IOEngine?,
    instrumentation: LatencyRecorder<FileReaderFeature.Action>?,
    readBlock: @escaping @Sendable (UInt64) async throws -> Int
  ) async throws -> Measurement {
    let feature = FileReaderFeature(blockSize: blockSize, readBlock: readBlock)
    let store =
      if let engine {
        Store(
          initialState: FileReaderFeature.State(), on: engine, instrumentation: instrumentation
        ) { feature }
      } else {
        Store(initialState: FileReaderFeature.State(), instrumentation: instrumentation) {
          feature
        }
      }
    let result = await Measurement.time(name, actions: reads) {
      let first = min(concurrency, reads)
      store.enqueue(.queue(reads: reads - first, blocks: blocks))
      for block in 0..<first { store.enqueue(.read(block: block % blocks)) }
      await store.finish()
    }
    let state = await store.state
    try checkCount(state.completed, expected: reads, run.label(name), what: "reads")
    try check(
      state.bytes == reads * blockSize, run.label(name),
      "read \(state.bytes) bytes, expected \(reads * blockSize)")
    return result
  }
}

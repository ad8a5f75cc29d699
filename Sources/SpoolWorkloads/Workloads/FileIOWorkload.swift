import Spool
import SpoolIO
import SpoolProfiling

/// `file-io`: ``FileReaderFeature`` reading 4 KiB blocks of a cached file, ``concurrency``
/// effects at a time (the producer enqueues a window of reads, then awaits `finish()`).
///
/// Spool's run reads through SpoolIO with its effects on the I/O engine's thread. Baselines:
/// `blocking-io`, the same feature calling blocking `pread` inside `.run`; and
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
  /// Not in the standard set (run it by name): it measures the device as much as Spool. On
  /// the 2-core reference VM both sides were device-bound, about 10 k reads/s (two runs:
  /// 0.67x and 1.01x of `blocking-io`): its virtual disk gained nothing from reads in flight.
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
    let spool = try await run.spool(FileReaderFeature.Action.self) { recorder in
      try await readBlocks(
        run, "spool", reads: reads, effectExecutor: engine.taskExecutor,
        instrumentation: recorder
      ) { offset in try await file.read(upTo: blockSize, at: offset).count }
    }
    try await file.close()
    let blocking = try BlockingFile(path: path, direct: direct)
    run.progress.begin(run.label("blocking-io"), total: reads)
    let blockingResult = try await readBlocks(
      run, "blocking-io", reads: reads, effectExecutor: nil, instrumentation: nil
    ) { offset in try blocking.read(upTo: blockSize, at: offset).count }
    var baselines = [blockingResult]
    if let extra = try await extraBaseline(path, engine) { baselines.append(extra) }
    var parameters = [
      "blockSize": String(blockSize), "concurrency": String(concurrency),
      "fileBytes": String(blocks * blockSize), "effectExecutor": "I/O engine thread",
    ]
    if direct { parameters["openFlags"] = "O_DIRECT" }
    return [
      run.report(
        spool, baselines: baselines, parameters: parameters, ioBackend: engine.backend.rawValue)
    ]
  }

  /// Reads `reads` pseudo-random blocks, `concurrency` at a time, through a fresh store.
  static func readBlocks(
    _ run: WorkloadRun, _ name: String, reads: Int, effectExecutor: (any TaskExecutor)?,
    instrumentation: LatencyRecorder<FileReaderFeature.Action>?,
    readBlock: @escaping @Sendable (UInt64) async throws -> Int
  ) async throws -> Measurement {
    let store = Store(
      initialState: FileReaderFeature.State(),
      options: StoreOptions(instrumentation: instrumentation, effectExecutor: effectExecutor)
    ) {
      FileReaderFeature(blockSize: blockSize, readBlock: readBlock)
    }
    let result = await Measurement.time(name, actions: reads) {
      var start = 0
      var block = 0
      while start < reads {
        let end = min(start + concurrency, reads)
        for _ in start..<end {
          block = (block &* 1_103_515_245 &+ 12_345) & 0x7fff_ffff
          store.enqueue(.read(block: block % blocks))
        }
        await store.finish()
        run.progress.advance(by: end - start)
        start = end
      }
    }
    let state = await store.state
    try checkCount(state.completed, expected: reads, run.label(name), what: "reads")
    try check(
      state.bytes == reads * blockSize, run.label(name),
      "read \(state.bytes) bytes, expected \(reads * blockSize)")
    return result
  }
}

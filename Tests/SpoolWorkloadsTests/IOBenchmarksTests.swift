#if canImport(Glibc)
  import Glibc
#endif
import SpoolCore
@testable import SpoolIO
import SpoolWorkloads
import Testing

/// Runs SpoolIO's measurement workloads when `SPOOL_IO_BENCH=1` (use a release build:
/// `SPOOL_IO_BENCH=1 swift test -c release -Xswiftc -enable-testing --filter IOBenchmarksRun`).
/// Prints figures; asserts nothing about time.
@Suite(.serialized, .enabled(if: getenv("SPOOL_IO_BENCH") != nil))
struct IOBenchmarksRun {
  @Test func fileReadsAgainstBlockingPread() async throws {
    let engine = try IOEngine(backend: .ioUring, ringEntries: 256)
    let ringOnlyEngine = try IOEngine(
      backend: .ioUring, ringEntries: 256, faults: nil, inlineCachedReads: false)
    let path = try await IOBenchmarks.prepareFile(blocks: 256, blockSize: 4096, engine: engine)
    defer { unlink(path) }
    let reads = 5_000
    // Warm-up, then measure every variant twice, interleaved.
    _ = try await IOBenchmarks.fileReads(
      engine: engine, path: path, tasks: 64, readsPerTask: 500, blockSize: 4096)
    for _ in 0..<2 {
      let ring = try await IOBenchmarks.fileReads(
        engine: engine, path: path, tasks: 64, readsPerTask: reads, blockSize: 4096)
      let onLoop = try await IOBenchmarks.fileReads(
        engine: engine, path: path, tasks: 64, readsPerTask: reads, blockSize: 4096,
        onLoopThread: true)
      let blocking = try await IOBenchmarks.blockingFileReads(
        path: path, tasks: 64, readsPerTask: reads, blockSize: 4096, yieldBetweenReads: false)
      let yielding = try await IOBenchmarks.blockingFileReads(
        path: path, tasks: 64, readsPerTask: reads, blockSize: 4096, yieldBetweenReads: true)
      // Every read through the ring, none served from the page cache on the calling thread:
      // the engine's own per-operation cost.
      let ringOnly = try await IOBenchmarks.fileReads(
        engine: ringOnlyEngine, path: path, tasks: 64, readsPerTask: reads, blockSize: 4096,
        onLoopThread: true)
      for result in [ring, onLoop, ringOnly, blocking, yielding] { print(result) }
      let c = try IOBenchmarks.cReferenceReads(path: path, blockSize: 4096, reads: 320_000)
      print("C batched-32 reference right after: \(Int(c.batched32)) ns/read; ratios "
        + "cooperative pool \(ring.nanosecondsPerOperation / c.batched32), "
        + "loop thread \(onLoop.nanosecondsPerOperation / c.batched32), "
        + "loop thread, ring only \(ringOnly.nanosecondsPerOperation / c.batched32)")
      for (name, result) in [
        ("cooperative pool", ring), ("loop thread", onLoop), ("loop thread, ring only", ringOnly),
      ] {
        print(
          "ratio io_uring (\(name)) / blocking pread throughput:",
          result.operationsPerSecond / blocking.operationsPerSecond,
          "/ yielding pread:", result.operationsPerSecond / yielding.operationsPerSecond)
      }
    }
    for onLoopThread in [false, true] {
      print(try await IOBenchmarks.fileReads(
        engine: engine, path: path, tasks: 1, readsPerTask: 50_000, blockSize: 4096,
        onLoopThread: onLoopThread))
    }
    let c = try IOBenchmarks.cReferenceReads(path: path, blockSize: 4096, reads: 320_000)
    print("C reference (same run): liburing QD1 \(Int(c.queueDepthOne)) ns/read, "
      + "32 batched \(Int(c.batched32)) ns/read, pread \(Int(c.pread)) ns/read")
    await engine.shutdown()
    await ringOnlyEngine.shutdown()
  }

  @Test func engineOverheadWithNoOperations() async throws {
    let engine = try IOEngine(backend: .ioUring, ringEntries: 256)
    for tasks in [1, 64] {
      for onLoopThread in [false, true] {
        print(try await IOBenchmarks.noOperations(
          engine: engine, tasks: tasks, operationsPerTask: 200_000 / tasks,
          onLoopThread: onLoopThread))
      }
    }
    await engine.shutdown()
  }

  /// The cost of the fault-injection point on the hot path: no-op operations on an engine
  /// without an injector (production: one branch not taken per call) against one whose
  /// injector is called for every call and injects nothing (an upper bound on that branch).
  @Test func faultInjectionPointCost() async throws {
    for onLoopThread in [false, true] {
      let plain = try IOEngine(backend: .ioUring, ringEntries: 256)
      let probed = try IOEngine(backend: .ioUring, ringEntries: 256, faults: { _ in nil })
      for _ in 0..<3 {
        let withoutInjector = try await IOBenchmarks.noOperations(
          engine: plain, tasks: 64, operationsPerTask: 3_000, onLoopThread: onLoopThread)
        let withInjector = try await IOBenchmarks.noOperations(
          engine: probed, tasks: 64, operationsPerTask: 3_000, onLoopThread: onLoopThread)
        print(
          "fault point\(onLoopThread ? " (loop thread)" : ""): without injector "
            + "\(withoutInjector.nanosecondsPerOperation) ns/op, with an injector called on "
            + "every call \(withInjector.nanosecondsPerOperation) ns/op")
      }
      await plain.shutdown()
      await probed.shutdown()
    }
  }

  @Test func tcpEchoAgainstTheThreadBackend() async throws {
    let ring = try IOEngine(backend: .ioUring)
    let threads = try IOEngine(backend: .threads)
    _ = try await IOBenchmarks.tcpEcho(
      engine: ring, connections: 64, roundTrips: 100, messageSize: 64)
    _ = try await IOBenchmarks.tcpEcho(
      engine: threads, connections: 64, roundTrips: 100, messageSize: 64)
    for _ in 0..<2 {
      let onRing = try await IOBenchmarks.tcpEcho(
        engine: ring, connections: 64, roundTrips: 1_000, messageSize: 64)
      let onThreads = try await IOBenchmarks.tcpEcho(
        engine: threads, connections: 64, roundTrips: 1_000, messageSize: 64)
      print(onRing)
      print(onThreads)
      let ratio = onRing.operationsPerSecond / onThreads.operationsPerSecond
      print("ratio io_uring/threads throughput: \(ratio)")
    }
    await ring.shutdown()
    await threads.shutdown()
  }
}

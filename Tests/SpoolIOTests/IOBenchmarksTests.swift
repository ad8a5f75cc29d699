#if canImport(Glibc)
  import Glibc
#endif
import Spool
@testable import SpoolIO
import Testing

/// Runs SpoolIO's measurement workloads when `SPOOL_IO_BENCH=1` (use a release build:
/// `SPOOL_IO_BENCH=1 swift test -c release -Xswiftc -enable-testing --filter IOBenchmarksRun`).
/// Prints figures; asserts nothing about time.
@Suite(.serialized, .enabled(if: getenv("SPOOL_IO_BENCH") != nil))
struct IOBenchmarksRun {
  @Test func fileReadsAgainstBlockingPread() async throws {
    let engine = try IOEngine(backend: .ioUring, ringEntries: 256)
    let path = try await IOBenchmarks.prepareFile(blocks: 256, blockSize: 4096, engine: engine)
    defer { unlink(path) }
    // Warm-up, then measure each side twice, interleaved.
    _ = try await IOBenchmarks.fileReads(
      engine: engine, path: path, tasks: 64, readsPerTask: 500, blockSize: 4096)
    for _ in 0..<2 {
      let ring = try await IOBenchmarks.fileReads(
        engine: engine, path: path, tasks: 64, readsPerTask: 5_000, blockSize: 4096)
      let blocking = try await IOBenchmarks.blockingFileReads(
        path: path, tasks: 64, readsPerTask: 5_000, blockSize: 4096)
      print(ring)
      print(blocking)
      print("ratio io_uring/blocking throughput: \(ring.operationsPerSecond / blocking.operationsPerSecond)")
    }
    let depthOne = try await IOBenchmarks.fileReads(
      engine: engine, path: path, tasks: 1, readsPerTask: 50_000, blockSize: 4096)
    print(depthOne)
    await engine.shutdown()
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
      print("ratio io_uring/threads throughput: \(onRing.operationsPerSecond / onThreads.operationsPerSecond)")
    }
    await ring.shutdown()
    await threads.shutdown()
  }
}

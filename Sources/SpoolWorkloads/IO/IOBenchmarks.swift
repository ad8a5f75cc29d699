#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif
import CSpoolURing
import SpoolCore
import SpoolIO

/// Measurement workloads for SpoolIO, for `spool bench` (`file-io`, `echo`) and ad-hoc runs.
///
/// Each workload does its setup (files, connections) before starting the clock and reports
/// the operations it timed. Compare results only within one run: `fileReads` against
/// `blockingFileReads` and ``cReferenceReads(path:blockSize:reads:)``, `tcpEcho` on io_uring
/// against `tcpEcho` on threads.
///
/// Run them with
/// `SPOOL_IO_BENCH=1 swift test -c release -Xswiftc -enable-testing --filter IOBenchmarksRun`.
/// What they show (64 tasks reading cached 4 KiB blocks), and why:
/// - A read the page cache holds is served on the calling thread (``IOFile/read(upTo:at:)``),
///   so a read from tasks on the ring's thread (``IOEngine/taskExecutor``) costs only somewhat
///   more than the C figure with 32 reads per `io_uring_enter`, and the same tasks on the
///   cooperative pool, reading on both cores, do better than that C figure.
/// - With every read through the ring (an engine created with `inlineCachedReads: false`), a
///   read costs more than twice the C figure: besides the kernel's read, Swift's continuation,
///   resumption and executor machinery (for a task that prefers a task executor, every
///   executor switch and every resumption takes the task's status lock) and the buffer and
///   result allocations; `noOperations` on the loop thread shows that part alone.
/// - For page-cached files SpoolIO does not reach the throughput of `blockingFileReads` (the
///   same tasks calling `pread` on the cooperative pool), which never blocks there and runs on
///   both cores; it gains where a read yields or waits (against `pread` that yields after each
///   read it is at least even), and on sockets: TCP echo (64 connections, 64-byte messages) on
///   io_uring is more than twenty times as fast as on the thread backend.
///
/// ```swift
/// let path = try await IOBenchmarks.prepareFile(blocks: 256, blockSize: 4096)
/// let ring = try await IOBenchmarks.fileReads(
///   engine: .shared, path: path, tasks: 64, readsPerTask: 10_000, blockSize: 4096)
/// let blocking = try await IOBenchmarks.blockingFileReads(
///   path: path, tasks: 64, readsPerTask: 10_000, blockSize: 4096, yieldBetweenReads: false)
/// print(ring.operationsPerSecond / blocking.operationsPerSecond)
/// ```
package enum IOBenchmarks {
  /// What one workload measured.
  package struct Result: Sendable, CustomStringConvertible {
    package var name: String
    package var operations: Int
    package var elapsedNanoseconds: UInt64

    package var nanosecondsPerOperation: Double {
      Double(elapsedNanoseconds) / Double(max(operations, 1))
    }

    package var operationsPerSecond: Double {
      Double(operations) * 1e9 / Double(max(elapsedNanoseconds, 1))
    }

    package var description: String {
      let perOperation = (nanosecondsPerOperation * 10).rounded() / 10
      return "\(name): \(operations) ops in \(elapsedNanoseconds / 1_000_000) ms, "
        + "\(perOperation) ns/op, \(Int(operationsPerSecond)) ops/s"
    }
  }

  /// Writes a file of `blocks` blocks of `blockSize` bytes and reads it once, so that it is in
  /// the page cache; returns its path.
  package static func prepareFile(
    blocks: Int, blockSize: Int, engine: IOEngine = .shared
  ) async throws -> String {
    let path = "/tmp/spool-io-bench-\(getpid()).dat"
    let file = try await IOFile.open(
      path, options: [.read, .write, .create, .truncate], on: engine)
    let block = [UInt8](repeating: 0xA5, count: blockSize)
    for index in 0..<blocks {
      try await file.write(block, at: UInt64(index * blockSize))
    }
    _ = try await file.readToEnd()
    try await file.close()
    return path
  }

  /// `tasks` concurrent tasks, each reading `readsPerTask` blocks of `blockSize` bytes from
  /// the cached file at `path` through `engine`; with `onLoopThread`, the tasks prefer the
  /// engine's ``IOEngine/taskExecutor`` (they run on the ring's thread).
  package static func fileReads(
    engine: IOEngine, path: String, tasks: Int, readsPerTask: Int, blockSize: Int,
    onLoopThread: Bool = false
  ) async throws -> Result {
    let file = try await IOFile.open(path, on: engine)
    let blocks = max(Int(try await file.status().size) / blockSize, 1)
    let start = SpoolTime.now()
    let preference: (any TaskExecutor)? = onLoopThread ? engine.taskExecutor : nil
    try await withThrowingTaskGroup(of: Void.self) { group in
      for task in 0..<tasks {
        group.addTask(executorPreference: preference) {
          var block = task
          for _ in 0..<readsPerTask {
            block = (block &* 1_103_515_245 &+ 12_345) & 0x7fff_ffff
            let bytes = try await file.read(
              upTo: blockSize, at: UInt64((block % blocks) * blockSize))
            precondition(bytes.count == blockSize, "short read in a benchmark")
          }
        }
      }
      try await group.waitForAll()
    }
    let elapsed = SpoolTime.now() - start
    try await file.close()
    return Result(
      name: "fileReads[\(engine.backend)\(onLoopThread ? " on loop thread" : "")"
        + "\(engine.backend == .ioUring && !engine.readsCachedDataInline ? ", ring only" : ""), "
        + "\(tasks) tasks, \(blockSize) B]",
      operations: tasks * readsPerTask, elapsedNanoseconds: elapsed)
  }

  /// The baseline of ``fileReads(engine:path:tasks:readsPerTask:blockSize:)``: the same tasks
  /// calling blocking `pread` on Swift's cooperative pool.
  ///
  /// With `yieldBetweenReads`, each task yields after each read, as a task that awaits
  /// something between reads would; without it each task runs its reads back to back.
  package static func blockingFileReads(
    path: String, tasks: Int, readsPerTask: Int, blockSize: Int, yieldBetweenReads: Bool
  ) async throws -> Result {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw IOError(errno: errno, operation: "open", target: .path(path)) }
    defer { close(fd) }
    var status = stat()
    fstat(fd, &status)
    let blocks = max(Int(status.st_size) / blockSize, 1)
    let start = SpoolTime.now()
    try await withThrowingTaskGroup(of: Void.self) { group in
      for task in 0..<tasks {
        group.addTask {
          var buffer = [UInt8](repeating: 0, count: blockSize)
          var block = task
          for _ in 0..<readsPerTask {
            block = (block &* 1_103_515_245 &+ 12_345) & 0x7fff_ffff
            let offset = off_t((block % blocks) * blockSize)
            let count = buffer.withUnsafeMutableBytes {
              pread(fd, $0.baseAddress, blockSize, offset)
            }
            precondition(count == blockSize, "short read in a benchmark")
            // The same copy-out the engine's `read` does, so both sides return fresh arrays.
            let bytes = Array(buffer)
            precondition(bytes.count == blockSize)
            if yieldBetweenReads { await Task.yield() }
          }
        }
      }
      try await group.waitForAll()
    }
    let elapsed = SpoolTime.now() - start
    return Result(
      name: "blockingFileReads[pread on the cooperative pool"
        + "\(yieldBetweenReads ? ", yielding" : ""), \(tasks) tasks, \(blockSize) B]",
      operations: tasks * readsPerTask, elapsedNanoseconds: elapsed)
  }

  /// The C figures the Swift workloads are compared with, measured now on the same file:
  /// liburing at queue depth 1, liburing with 32 reads per `io_uring_enter`, and `pread`.
  package static func cReferenceReads(
    path: String, blockSize: Int, reads: Int
  ) throws -> (queueDepthOne: Double, batched32: Double, pread: Double) {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw IOError(errno: errno, operation: "open", target: .path(path)) }
    defer { close(fd) }
    var status = stat()
    fstat(fd, &status)
    let blocks = UInt32(max(Int(status.st_size) / blockSize, 1))
    func measure(_ batch: UInt32) -> Double {
      cspool_benchmark_reads(fd, blocks, UInt32(blockSize), UInt32(reads), batch)
    }
    return (measure(1), measure(32), measure(0))
  }

  /// `tasks` concurrent tasks, each submitting `operationsPerTask` no-op operations: the
  /// engine's own cost per operation (hand-off, batching, completion, resumption) without the
  /// kernel doing any I/O.
  package static func noOperations(
    engine: IOEngine, tasks: Int, operationsPerTask: Int, onLoopThread: Bool = false
  ) async throws -> Result {
    let preference: (any TaskExecutor)? = onLoopThread ? engine.taskExecutor : nil
    let start = SpoolTime.now()
    try await withThrowingTaskGroup(of: Void.self) { group in
      for _ in 0..<tasks {
        group.addTask(executorPreference: preference) {
          for _ in 0..<operationsPerTask {
            try await engine.performNoOperation()
          }
        }
      }
      try await group.waitForAll()
    }
    let elapsed = SpoolTime.now() - start
    return Result(
      name: "noOperations[\(engine.backend)\(onLoopThread ? " on loop thread" : ""), "
        + "\(tasks) tasks]",
      operations: tasks * operationsPerTask, elapsedNanoseconds: elapsed)
  }

  /// `connections` clients over loopback, each sending `roundTrips` messages of `messageSize`
  /// bytes to an echo server on the same engine and waiting for each echo. One operation is
  /// one round trip.
  package static func tcpEcho(
    engine: IOEngine, connections: Int, roundTrips: Int, messageSize: Int
  ) async throws -> Result {
    let listener = try TCPSocket.listen(host: "127.0.0.1", port: 0, on: engine)
    let port = listener.localPort
    var clients: [TCPSocket] = []
    var servers: [TCPSocket] = []
    for _ in 0..<connections {
      clients.append(try await TCPSocket.connect(host: "127.0.0.1", port: port, on: engine))
      servers.append(try await listener.accept())
    }
    let message = [UInt8](repeating: 0x5A, count: messageSize)
    let start = SpoolTime.now()
    try await withThrowingTaskGroup(of: Void.self) { group in
      for server in servers {
        group.addTask {
          while case let bytes = try await server.receive(upTo: 65_536), !bytes.isEmpty {
            try await server.send(bytes)
          }
        }
      }
      for client in clients {
        group.addTask {
          for _ in 0..<roundTrips {
            try await client.send(message)
            var received = 0
            while received < messageSize {
              let bytes = try await client.receive(upTo: messageSize - received)
              precondition(!bytes.isEmpty, "the echo server closed early")
              received += bytes.count
            }
          }
          try await client.close()
        }
      }
      try await group.waitForAll()
    }
    let elapsed = SpoolTime.now() - start
    for server in servers { try await server.close() }
    try await listener.close()
    return Result(
      name: "tcpEcho[\(engine.backend), \(connections) connections, \(messageSize) B]",
      operations: connections * roundTrips, elapsedNanoseconds: elapsed)
  }
}

// File reads and a loopback echo: Spool (a store whose effects do the I/O through SpoolIO, and
// SpoolIO alone) beside SwiftNIO (NonBlockingFileIO; a ServerBootstrap echo server). Gate on
// allocations per operation; compare wall-clock figures within one run only.
import Benchmark
import Foundation
import NIOCore
import NIOPosix
import Spool
import SpoolIO
import SpoolWorkloads

let blockSize = 4_096
let blocks = 256
let concurrency = 64
let connections = 64
let message = [UInt8](repeating: 0x5A, count: 64)

let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .init(
    metrics: [.wallClock, .throughput, .mallocCountTotal],
    scalingFactor: .kilo,
    maxDuration: .seconds(2),
    maxIterations: 20
  )

  Benchmark("Spool store: FileReaderFeature, 4 KiB reads via SpoolIO (64 in flight)") {
    benchmark in
    let path = try makeFile()
    let file = try await IOFile.open(path)
    let store = Store(initialState: FileReaderFeature.State()) {
      FileReaderFeature(blockSize: blockSize) { offset in
        try await file.read(upTo: blockSize, at: offset).count
      }
    }
    let total = benchmark.scaledIterations.count
    benchmark.startMeasurement()
    var start = 0
    while start < total {
      let end = min(start + concurrency, total)
      for index in start..<end { store.enqueue(.read(block: index &* 7_919 % blocks)) }
      await store.finish()
      start = end
    }
    benchmark.stopMeasurement()
    let bytes = await store.state.bytes
    precondition(bytes == total * blockSize, "short reads")
    try await file.close()
  }

  Benchmark("SpoolIO: IOFile 4 KiB reads (64 tasks)") { benchmark in
    let path = try makeFile()
    let file = try await IOFile.open(path)
    let perTask = max(1, benchmark.scaledIterations.count / concurrency)
    benchmark.startMeasurement()
    try await withThrowingTaskGroup(of: Void.self) { group in
      for task in 0..<concurrency {
        group.addTask {
          for index in 0..<perTask {
            let block = (task &* perTask &+ index) &* 7_919 % blocks
            blackHole(try await file.read(upTo: blockSize, at: UInt64(block * blockSize)))
          }
        }
      }
      try await group.waitForAll()
    }
    benchmark.stopMeasurement()
    try await file.close()
  }

  Benchmark("SwiftNIO: NonBlockingFileIO 4 KiB reads (64 tasks)") { benchmark in
    let path = try makeFile()
    let fileIO = NonBlockingFileIO(threadPool: .singleton)
    let perTask = max(1, benchmark.scaledIterations.count / concurrency)
    try await fileIO.withFileHandle(_deprecatedPath: path, mode: .read) { handle in
      benchmark.startMeasurement()
      try await withThrowingTaskGroup(of: Void.self) { group in
        for task in 0..<concurrency {
          group.addTask {
            for index in 0..<perTask {
              let block = (task &* perTask &+ index) &* 7_919 % blocks
              blackHole(
                try await fileIO.read(
                  fileHandle: handle, fromOffset: Int64(block * blockSize),
                  byteCount: blockSize, allocator: ByteBufferAllocator()))
            }
          }
        }
        try await group.waitForAll()
      }
      benchmark.stopMeasurement()
    }
  }

  Benchmark("Spool store: echo server, connections as child features (64 clients)") {
    benchmark in
    let listener = try await NetworkClient.live(on: .shared).listen("127.0.0.1", 0)
    let store = Store(initialState: EchoServerFeature.State()) {
      EchoServerFeature(listener: listener)
    }
    store.enqueue(.start)
    var clients: [TCPSocket] = []
    for _ in 0..<connections {
      clients.append(try await TCPSocket.connect(host: "127.0.0.1", port: listener.port))
    }
    while await store.state.accepted < connections { try await Task.sleep(for: .milliseconds(1)) }
    let roundTrips = max(1, benchmark.scaledIterations.count / connections)
    benchmark.startMeasurement()
    try await withThrowingTaskGroup(of: Void.self) { group in
      for client in clients {
        group.addTask {
          for _ in 0..<roundTrips {
            try await client.send(message)
            var received = 0
            while received < message.count {
              received += try await client.receive(upTo: message.count - received).count
            }
          }
        }
      }
      try await group.waitForAll()
    }
    benchmark.stopMeasurement()
    for client in clients { try await client.close() }
    while await store.state.closed < connections { try await Task.sleep(for: .milliseconds(1)) }
    store.enqueue(.stop)
    await store.finish()
    try await listener.close()
  }

  Benchmark("SwiftNIO: echo server, ServerBootstrap (64 clients)") { benchmark in
    let group = MultiThreadedEventLoopGroup.singleton
    let server = try await ServerBootstrap(group: group)
      .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
          try channel.pipeline.syncOperations.addHandler(EchoHandler())
        }
      }
      .bind(host: "127.0.0.1", port: 0).get()
    let port = server.localAddress!.port!
    var clients: [NIOAsyncChannel<ByteBuffer, ByteBuffer>] = []
    for _ in 0..<connections {
      clients.append(
        try await ClientBootstrap(group: group).connect(host: "127.0.0.1", port: port) {
          channel in
          channel.eventLoop.makeCompletedFuture {
            try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
          }
        })
    }
    let roundTrips = max(1, benchmark.scaledIterations.count / connections)
    benchmark.startMeasurement()
    try await withThrowingTaskGroup(of: Void.self) { tasks in
      for client in clients {
        tasks.addTask {
          try await client.executeThenClose { inbound, outbound in
            var iterator = inbound.makeAsyncIterator()
            let buffer = ByteBuffer(bytes: message)
            for _ in 0..<roundTrips {
              try await outbound.write(buffer)
              var received = 0
              while received < message.count, let chunk = try await iterator.next() {
                received += chunk.readableBytes
              }
            }
          }
        }
      }
      try await tasks.waitForAll()
    }
    benchmark.stopMeasurement()
    try await server.close()
  }
}

/// A cached file of `blocks` blocks, written once per process.
func makeFile() throws -> String {
  let path = "/tmp/spool-benchmarks-\(ProcessInfo.processInfo.processIdentifier).dat"
  if !FileManager.default.fileExists(atPath: path) {
    try Data(repeating: 0xA5, count: blocks * blockSize).write(to: URL(fileURLWithPath: path))
  }
  return path
}

/// Writes back what it reads.
final class EchoHandler: ChannelInboundHandler, Sendable {
  typealias InboundIn = ByteBuffer
  typealias OutboundOut = ByteBuffer

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    context.writeAndFlush(data, promise: nil)
  }
}

#if canImport(Glibc)
  import Glibc
#endif
import SpoolCore
@testable import SpoolIO
import Testing

extension SpoolIOTests {
  @Suite struct IOFileTests {
    @Test(arguments: allBackends)
    func openingAMissingFileNamesThePathAndErrno(backend: IOBackend.Preference) async throws {
      try await expectNoDescriptorLeak {
        try await withEngine(backend) { engine in
          let error = await expectIOError(ENOENT) {
            _ = try await IOFile.open("/nope/spool-missing", on: engine)
          }
          #expect(
            error?.description
              == #"open("/nope/spool-missing"): No such file or directory (ENOENT)"#)
        }
      }
    }

    @Test(arguments: allBackends)
    func writesAtOffsetsAppendsAndReadsBack(backend: IOBackend.Preference) async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await expectNoDescriptorLeak {
        try await withEngine(backend) { engine in
          let path = directory.file("data")
          let file = try await IOFile.open(
            path, options: [.read, .write, .create, .truncate], on: engine)
          try await file.write(Array("hello world".utf8), at: 0)
          try await file.write(Array("HELLO".utf8), at: 0)
          #expect(try await file.read(upTo: 100, at: 0) == Array("HELLO world".utf8))
          #expect(try await file.read(upTo: 5, at: 6) == Array("world".utf8))
          try await file.sync()
          let status = try await file.status()
          #expect(status.size == 11)
          #expect(status.kind == .regular)
          try await file.close()

          let log = try await IOFile.open(path, options: [.write, .append], on: engine)
          try await log.append(Array("!".utf8))
          try await log.append(Array("?".utf8))
          try await log.close()
          let reread = try await IOFile.open(path, on: engine)
          #expect(try await reread.readToEnd() == Array("HELLO world!?".utf8))
          try await reread.close()
        }
      }
    }

    @Test(arguments: allBackends)
    func readingPastTheEndReturnsNothing(backend: IOBackend.Preference) async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await withEngine(backend) { engine in
        let file = try await IOFile.open(
          directory.file("short"), options: [.read, .write, .create], on: engine)
        try await file.write([1, 2, 3], at: 0)
        #expect(try await file.read(upTo: 10, at: 2) == [3])
        #expect(try await file.read(upTo: 10, at: 3) == [])
        #expect(try await file.read(upTo: 10, at: 1 << 40) == [])
        try await file.close()
      }
    }

    @Test(arguments: allBackends)
    func readingADirectoryFailsWithEISDIR(backend: IOBackend.Preference) async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await expectNoDescriptorLeak {
        try await withEngine(backend) { engine in
          let file = try await IOFile.open(directory.path, on: engine)
          let error = await expectIOError(EISDIR) { _ = try await file.read(upTo: 10, at: 0) }
          #expect(error?.operation == "read")
          #expect(error?.target == .descriptor(file.descriptor))
          #expect(try await file.status().kind == .directory)
          try await file.close()
          await expectIOError(EISDIR) {
            _ = try await IOFile.open(directory.path, options: [.write], on: engine)
          }
        }
      }
    }

    @Test(arguments: allBackends)
    func operationsAfterCloseFailWithEBADF(backend: IOBackend.Preference) async throws {
      try await expectNoDescriptorLeak {
        try await withEngine(backend) { engine in
          let file = try await IOFile.open("/proc/self/stat", on: engine)
          try await file.close()
          let error = await expectIOError(EBADF) { _ = try await file.read(upTo: 1, at: 0) }
          #expect(error?.description == "read(fd \(file.descriptor)): Bad file descriptor (EBADF)")
          await expectIOError(EBADF) { try await file.close() }
          await expectIOError(EBADF) { try await file.sync() }
        }
      }
    }

    @Test(arguments: allBackends)
    func anInvalidDescriptorFailsInTheKernelWithEBADF(backend: IOBackend.Preference)
      async throws
    {
      try await withEngine(backend) { engine in
        // Far above any descriptor limit, so no real file can have this number.
        let bogus = IOFile(descriptor: 1 << 30, path: "bogus", engine: engine)
        await expectIOError(EBADF) { _ = try await bogus.read(upTo: 8, at: 0) }
        await expectIOError(EBADF) { try await bogus.write([1], at: 0) }
        await expectIOError(EBADF) { try await bogus.close() }
      }
    }

    @Test(arguments: allBackends)
    func aDirectFileReadsAndWritesAlignedBlocksAndRefusesAnUnalignedRead(
      backend: IOBackend.Preference
    ) async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await expectNoDescriptorLeak {
        try await withEngine(backend) { engine in
          let blocks = (0..<4).map {
            [UInt8](repeating: UInt8(ascii: "a") + UInt8($0), count: 4096)
          }
          let file = try await IOFile.open(
            directory.file("direct"), options: [.read, .write, .create, .truncate, .direct],
            on: engine)
          for (index, block) in blocks.enumerated() {
            try await file.write(block, at: UInt64(index * 4096))
          }
          #expect(try await file.read(upTo: 4096, at: 8192) == blocks[2])
          // Short at the end of the file, empty past it.
          #expect(try await file.read(upTo: 8192, at: 12288) == blocks[3])
          #expect(try await file.read(upTo: 4096, at: 16384) == [])
          let error = await expectIOError(EINVAL) { _ = try await file.read(upTo: 100, at: 1) }
          #expect(error?.description == "read(fd \(file.descriptor)): Invalid argument (EINVAL)")
          try await file.close()
        }
      }
    }

    @Test func cachedReadsOnTheCallingThreadMatchReadsThroughTheRing() async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      let path = directory.file("data")
      let contents = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
      try await expectNoDescriptorLeak {
        let ring = try IOEngine(backend: .ioUring, faults: nil, inlineCachedReads: false)
        try await withEngine(.ioUring) { engine in
          #expect(engine.readsCachedDataInline)
          #expect(!ring.readsCachedDataInline)
          let writer = try await IOFile.open(
            path, options: [.write, .create, .truncate], on: engine)
          try await writer.write(contents, at: 0)
          try await writer.close()
          let inline = try await IOFile.open(path, on: engine)
          let queued = try await IOFile.open(path, on: ring)
          // Whole blocks, a short read at the end, past the end, and a read above the limit.
          let reads: [(count: Int, offset: UInt64)] = [
            (4_096, 0), (4_096, 8_192), (10_000, 95_000), (10, 100_000), (1, 1 << 40),
            (IOFile.inlineReadLimit + 1, 0),
          ]
          for read in reads {
            let expected = Array(
              contents.dropFirst(Int(min(read.offset, 100_000))).prefix(read.count))
            #expect(try await inline.read(upTo: read.count, at: read.offset) == expected)
            #expect(try await queued.read(upTo: read.count, at: read.offset) == expected)
          }
          #expect(try await inline.readToEnd() == contents)
          try await inline.close()
          try await queued.close()
        }
        await ring.shutdown()
      }
    }

    @Test(arguments: allBackends)
    func aCancelledTaskReadsNothing(backend: IOBackend.Preference) async throws {
      try await withEngine(backend) { engine in
        let file = try await IOFile.open("/proc/self/stat", on: engine)
        let task = Task {
          withUnsafeCurrentTask { $0?.cancel() }
          return try await file.read(upTo: 64, at: 0)
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        try await file.close()
      }
    }

    @Test func aPipeReadWaitsOnTheRingAndCanBeCancelled() async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      let path = directory.file("fifo")
      #expect(mkfifo(path, 0o600) == 0)
      try await expectNoDescriptorLeak {
        try await withEngine(.ioUring) { engine in
          // Read and write, so that opening does not wait for a writer.
          let fifo = try await IOFile.open(path, options: [.read, .write], on: engine)
          // Nothing to read: the read waits in the kernel until the bytes come.
          let reader = Task { try await fifo.read(upTo: 16, at: 0) }
          try await fifo.write(Array("ping".utf8), at: 0)
          #expect(try await reader.value == Array("ping".utf8))
          let cancelled = Task { try await fifo.read(upTo: 16, at: 0) }
          while engine.operationsInFlight == 0 { await Task.yield() }
          cancelled.cancel()
          await #expect(throws: CancellationError.self) { try await cancelled.value }
          try await fifo.close()
        }
      }
    }

    @Test(arguments: allBackends)
    func aTebibyteReadReturnsWhatTheFileHas(backend: IOBackend.Preference) async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await withEngine(backend) { engine in
        let file = try await IOFile.open(
          directory.file("short"), options: [.read, .write, .create], on: engine)
        try await file.write(Array("short".utf8), at: 0)
        #expect(try await file.read(upTo: 1 << 40, at: 0) == Array("short".utf8))
        #expect(try await file.read(upTo: Int.max, at: 2) == Array("ort".utf8))
        try await file.close()
        // A device that never ends: one read returns at most the documented 16 MiB.
        let zero = try await IOFile.open("/dev/zero", on: engine)
        let bytes = try await zero.read(upTo: 1 << 40, at: 0)
        #expect(!bytes.isEmpty && bytes.count <= IOLimits.maximumReadCount)
        #expect(bytes.prefix(4096).allSatisfy { $0 == 0 })
        #expect(try await zero.read(upTo: 1 << 40).count <= IOLimits.maximumReadCount)
        try await zero.close()
      }
    }

    @Test(arguments: allBackends)
    func negativeCountsAndOffsetsBeyondInt64AreRefused(
      backend: IOBackend.Preference
    ) async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await withEngine(backend) { engine in
        let file = try await IOFile.open(
          directory.file("data"), options: [.read, .write, .create], on: engine)
        try await file.write(Array("data".utf8), at: 0)
        let beyond = UInt64(Int64.max) + 1
        let error = await expectIOError(EINVAL) { _ = try await file.read(upTo: -1, at: 0) }
        #expect(error?.operation == "read" && error?.target == .descriptor(file.descriptor))
        await expectIOError(EINVAL) { _ = try await file.read(upTo: -1) }
        await expectIOError(EINVAL) { _ = try await file.read(upTo: Int.min, at: 0) }
        await expectIOError(EINVAL) { _ = try await file.read(upTo: 1, at: beyond) }
        await expectIOError(EINVAL) { _ = try await file.read(upTo: 1, at: .max - 1) }
        await expectIOError(EINVAL) { try await file.write([1], at: beyond) }
        // The largest representable offset reaches the kernel, which refuses a write ending
        // beyond it the same way on both backends.
        await expectIOError(EINVAL) { try await file.write([1], at: UInt64(Int64.max)) }
        #expect(try await file.read(upTo: 0, at: 0) == [])
        // The engine (on io_uring, its loop thread) still serves.
        #expect(try await file.read(upTo: 4, at: 0) == Array("data".utf8))
        try await file.close()
      }
    }

    /// Opening a FIFO that has no writer blocks the thread pool's worker in `open`; cancelling
    /// the task ends it (the pool interrupts the call). io_uring opens the reading end without
    /// waiting for a writer (its first, non-blocking attempt succeeds), so there the open
    /// returns a file: either way, the task never hangs.
    @Test(arguments: allBackends)
    func openingAFIFOWithoutAWriterEndsWhenCancelled(backend: IOBackend.Preference) async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      let path = directory.file("fifo")
      #expect(mkfifo(path, 0o600) == 0)
      try await withEngine(backend) { engine in
        for _ in 0..<3 {
          let ended = Flag()
          let opening = Task {
            defer { ended.set() }
            return try await IOFile.open(path, on: engine)
          }
          while engine.operationsInFlight == 0 && !ended.isSet { await Task.yield() }
          opening.cancel()
          let result = await resultBounded(of: opening) { poke(fifo: path) }
          switch (result, backend) {
          case (.success(let file), .ioUring):
            try await file.close()
          default:
            #expect(throws: CancellationError.self) { _ = try result.get() }
            if case .success(let file) = result { try await file.close() }
          }
        }
        // The engine still serves: with a writer, the open returns.
        let ended = Flag()
        let opening = Task {
          defer { ended.set() }
          return try await IOFile.open(path, on: engine)
        }
        // A writer's non-blocking open succeeds once the reader is in `open` (or done).
        var writer: Int32 = -1
        while writer < 0 {
          writer = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
          if writer < 0 { await Task.yield() }
        }
        let file = try await opening.value
        close(writer)
        try await file.close()
      }
    }

    /// A read of a FIFO whose writer stays silent waits in the kernel; cancelling the task ends
    /// it on both backends, and the FIFO and engine serve on.
    @Test(arguments: allBackends)
    func readingASilentFIFOEndsWhenCancelled(backend: IOBackend.Preference) async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      let path = directory.file("fifo")
      #expect(mkfifo(path, 0o600) == 0)
      try await withEngine(backend) { engine in
        // Read and write, so that opening does not wait for a writer.
        let fifo = try await IOFile.open(path, options: [.read, .write], on: engine)
        for _ in 0..<3 {
          let reading = Task { try await fifo.read(upTo: 16) }
          while engine.operationsInFlight == 0 { await Task.yield() }
          reading.cancel()
          let result = await resultBounded(of: reading) { poke(fifo: path, [0]) }
          #expect(throws: CancellationError.self) { _ = try result.get() }
        }
        try await fifo.append(Array("ping".utf8))
        #expect(try await fifo.read(upTo: 16) == Array("ping".utf8))
        try await fifo.close()
      }
    }

    /// A shutdown ends a FIFO open that no writer will ever release, with `ECANCELED`, and
    /// returns: the thread pool's shutdown waits for its workers, so it interrupts them. (The
    /// ring opens the reading end without waiting, see the test above.)
    @Test func shutdownEndsABlockedFIFOOpen() async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      let path = directory.file("fifo")
      #expect(mkfifo(path, 0o600) == 0)
      let engine = try IOEngine(backend: .threads)
      let opening = Task { try await IOFile.open(path, on: engine) }
      while engine.operationsInFlight == 0 { await Task.yield() }
      let shutdown = Task { await engine.shutdown() }
      let result = await resultBounded(of: opening) { poke(fifo: path) }
      await expectIOError(ECANCELED) { _ = try result.get() }
      if case .success(let file) = result { try await file.close() }
      await shutdown.value
      #expect(engine.openBackendDescriptors == 0)
    }
  }
}

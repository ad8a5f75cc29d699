#if canImport(Glibc)
  import Glibc
#endif
import Spool
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
  }
}

#if canImport(Glibc)
  import Glibc
#endif
import SpoolCore
@testable import SpoolIO
import Testing

extension SpoolIOTests {
  /// `IOFile.allocateSpace` (`fallocate`) and `IOFile.truncate(to:)` (`ftruncate`) on real
  /// files in /tmp, on io_uring (`IORING_OP_FALLOCATE`, `IORING_OP_FTRUNCATE`) and on the
  /// thread fallback (`fallocate(2)`, `ftruncate(2)`).
  @Suite struct IOFileSpaceTests {
    /// The file's size and its allocated bytes (`st_blocks` counts 512-byte units).
    static func sizes(_ path: String) -> (size: Int, allocated: Int) {
      var status = stat()
      guard stat(path, &status) == 0 else { return (-1, -1) }
      return (Int(status.st_size), Int(status.st_blocks) * 512)
    }

    /// The file system's block size at `path` (`st_blksize`).
    static func blockSize(_ path: String) -> Int {
      var status = stat()
      guard stat(path, &status) == 0 else { return -1 }
      return Int(status.st_blksize)
    }

    /// Whether this kernel is Linux 6.9 or later, whose io_uring has `IORING_OP_FTRUNCATE`.
    static let kernelHasRingTruncation: Bool = {
      var name = utsname()
      guard uname(&name) == 0 else { return false }
      let release = withUnsafeBytes(of: name.release) {
        String(cString: $0.baseAddress!.assumingMemoryBound(to: CChar.self))
      }
      let numbers = release.split(whereSeparator: { !$0.isNumber }).prefix(2).compactMap {
        Int($0)
      }
      guard numbers.count == 2 else { return false }
      return (numbers[0], numbers[1]) >= (6, 9)
    }()

    /// Where a truncation runs.
    enum TruncationPath: String, CaseIterable, Sendable {
      /// `IORING_OP_FTRUNCATE` on the ring (on a kernel that has it).
      case ring
      /// `ftruncate(2)` on worker threads of a ring engine, as on a kernel before Linux 6.9.
      case ringWithoutTheOpcode
      /// `ftruncate(2)` on the thread backend.
      case threads

      var backend: IOBackend.Preference { self == .threads ? .threads : .ioUring }
      var truncateOnRing: Bool { self != .ringWithoutTheOpcode }
    }

    /// Runs `body` on an engine whose truncations take `path`, after checking that they do.
    static func withTruncatingEngine(
      _ path: TruncationPath, faults: IOFault.Injector? = nil,
      _ body: (IOEngine) async throws -> Void
    ) async throws {
      try await withEngine(
        path.backend, faults: faults, truncateOnRing: path.truncateOnRing
      ) { engine in
        #expect(engine.backend == (path == .threads ? .threads : .ioUring))
        #expect(engine.truncatesOnRing == (path == .ring && kernelHasRingTruncation))
        try await body(engine)
      }
    }

    /// With `keepSize`, space past the end is allocated and the file still ends where it did:
    /// its bytes read back unchanged, with no zero tail.
    @Test(arguments: allBackends)
    func reservingPastTheEndKeepsTheSize(backend: IOBackend.Preference) async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await expectNoDescriptorLeak {
        try await withEngine(backend) { engine in
          let path = directory.file("reserved")
          let file = try await IOFile.open(
            path, options: [.read, .write, .create, .truncate], on: engine)
          let bytes = [UInt8](repeating: 0x5A, count: 100)
          try await file.write(bytes, at: 0)
          #expect(Self.sizes(path).allocated < 1 << 20)
          try await file.allocateSpace(.keepSize, offset: 0, length: 1 << 20)
          let (size, allocated) = Self.sizes(path)
          #expect(size == 100)
          #expect(allocated >= 1 << 20, "\(allocated) bytes allocated")
          #expect(try await file.status().size == 100)
          #expect(try await file.readToEnd() == bytes)
          // `statx` reports the reservation: the blocks `stat` counts, and the block size.
          let status = try await file.status()
          #expect(status.allocatedBytes == UInt64(allocated))
          #expect(status.blockSize == UInt32(Self.blockSize(path)))
          let byPath = try await FileOperations.status(path, engine: engine)
          #expect(byPath.allocatedBytes == UInt64(allocated))
          try await file.close()
        }
      }
    }

    /// `punchHole` releases a range inside the file: it reads back as zeros, the rest is
    /// untouched, the size unchanged.
    @Test(arguments: allBackends)
    func punchingAHoleReleasesARange(backend: IOBackend.Preference) async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await withEngine(backend) { engine in
        let path = directory.file("punched")
        let file = try await IOFile.open(
          path, options: [.read, .write, .create, .truncate], on: engine)
        try await file.write([UInt8](repeating: 0xAB, count: 64 << 10), at: 0)
        try await file.sync()
        let before = Self.sizes(path).allocated
        try await file.allocateSpace([.keepSize, .punchHole], offset: 0, length: 32 << 10)
        let (size, allocated) = Self.sizes(path)
        #expect(size == 64 << 10)
        #expect(allocated <= before - (32 << 10), "\(before) then \(allocated) bytes")
        let contents = try await file.readToEnd()
        #expect(contents.count == 64 << 10)
        #expect(contents.prefix(32 << 10).allSatisfy { $0 == 0 })
        #expect(contents.suffix(32 << 10).allSatisfy { $0 == 0xAB })
        try await file.close()
      }
    }

    /// A descriptor open for reading only: `EBADF`, naming the call and the path.
    @Test(arguments: allBackends)
    func aReadOnlyFileFailsNamingTheCall(backend: IOBackend.Preference) async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await withEngine(backend) { engine in
        let path = directory.file("read-only")
        let writer = try await IOFile.open(path, options: [.write, .create], on: engine)
        try await writer.close()
        let file = try await IOFile.open(path, on: engine)
        let error = await expectIOError(EBADF) {
          try await file.allocateSpace(.keepSize, offset: 0, length: 4_096)
        }
        #expect(error?.description == "fallocate(\"\(path)\"): Bad file descriptor (EBADF)")
        try await file.close()
      }
    }

    /// An injected fault reaches the caller as the call's `IOError`, on both backends (the
    /// ring completes the operation with it; the pool's call returns it).
    @Test(arguments: allBackends)
    func anInjectedFaultIsTheCallsError(backend: IOBackend.Preference) async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await withEngine(
        backend, faults: { $0 == "fallocate" ? .error(EOPNOTSUPP) : nil }
      ) { engine in
        let path = directory.file("unsupported")
        let file = try await IOFile.open(path, options: [.write, .create], on: engine)
        await expectIOError(EOPNOTSUPP) {
          try await file.allocateSpace(.keepSize, offset: 0, length: 4_096)
        }
        #expect(Self.sizes(path).allocated == 0)
        try await file.close()
      }
    }

    /// Truncating to the current size releases the space reserved past the end with
    /// `keepSize` (which ext4 keeps through a hole punched there): the file then holds no
    /// more than its bytes rounded up to a block, and reads back unchanged.
    @Test(arguments: TruncationPath.allCases)
    func truncatingToTheSizeReleasesTheReservation(path: TruncationPath) async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await expectNoDescriptorLeak {
        try await Self.withTruncatingEngine(path) { engine in
          let file = directory.file("truncated")
          let handle = try await IOFile.open(
            file, options: [.read, .write, .create, .truncate], on: engine)
          let bytes = [UInt8](repeating: 0x5A, count: 100)
          try await handle.write(bytes, at: 0)
          try await handle.allocateSpace(.keepSize, offset: 0, length: 1 << 20)
          #expect(Self.sizes(file).allocated >= 1 << 20, "the reservation took")
          try await handle.truncate(to: 100)
          let (size, allocated) = Self.sizes(file)
          let block = Self.blockSize(file)
          #expect(size == 100)
          #expect(allocated <= (size + block - 1) / block * block, "\(allocated) bytes allocated")
          #expect(try await handle.readToEnd() == bytes)
          try await handle.close()
        }
      }
    }

    /// Truncating cuts the bytes past the new size, and extends the file with zeros.
    @Test(arguments: TruncationPath.allCases)
    func truncatingCutsAndExtends(path: TruncationPath) async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await Self.withTruncatingEngine(path) { engine in
        let file = try await IOFile.open(
          directory.file("cut"), options: [.read, .write, .create, .truncate], on: engine)
        try await file.write([UInt8](repeating: 0xAB, count: 64 << 10), at: 0)
        try await file.truncate(to: 1_000)
        #expect(try await file.status().size == 1_000)
        #expect(try await file.readToEnd() == [UInt8](repeating: 0xAB, count: 1_000))
        try await file.truncate(to: 5_000)
        let extended = try await file.readToEnd()
        #expect(extended.count == 5_000)
        #expect(extended.prefix(1_000).allSatisfy { $0 == 0xAB })
        #expect(extended.suffix(4_000).allSatisfy { $0 == 0 })
        try await file.close()
      }
    }

    /// A descriptor open for reading only: `EINVAL` from the kernel, naming the call and the
    /// path; a length beyond `Int64.max` fails the same way before reaching it; after
    /// `close()`, `EBADF` without reaching it.
    @Test(arguments: TruncationPath.allCases)
    func aBadTruncationFailsNamingTheCall(path: TruncationPath) async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await Self.withTruncatingEngine(path) { engine in
        let file = directory.file("read-only")
        let writer = try await IOFile.open(file, options: [.write, .create], on: engine)
        try await writer.write([1, 2, 3], at: 0)
        await expectIOError(EINVAL) { try await writer.truncate(to: UInt64(Int64.max) + 1) }
        try await writer.close()
        let closed = await expectIOError(EBADF) { try await writer.truncate(to: 0) }
        #expect(closed?.operation == "ftruncate")
        let reader = try await IOFile.open(file, on: engine)
        let error = await expectIOError(EINVAL) { try await reader.truncate(to: 0) }
        #expect(error?.description == "ftruncate(\"\(file)\"): Invalid argument (EINVAL)")
        #expect(Self.sizes(file).size == 3)
        try await reader.close()
      }
    }

    /// An injected fault reaches the caller as the call's `IOError`, and the file is left as
    /// it was: on the ring (the operation completes with it), and on worker threads (the call
    /// returns it).
    @Test(arguments: TruncationPath.allCases)
    func anInjectedTruncationFaultIsTheCallsError(path: TruncationPath) async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await Self.withTruncatingEngine(
        path, faults: { $0 == "ftruncate" ? .error(EIO) : nil }
      ) { engine in
        let file = directory.file("faulted")
        let handle = try await IOFile.open(file, options: [.write, .create], on: engine)
        try await handle.write([UInt8](repeating: 7, count: 4_096), at: 0)
        let error = await expectIOError(EIO) { try await handle.truncate(to: 0) }
        #expect(error?.description == "ftruncate(\"\(file)\"): Input/output error (EIO)")
        #expect(Self.sizes(file).size == 4_096)
        try await handle.close()
      }
    }
  }
}

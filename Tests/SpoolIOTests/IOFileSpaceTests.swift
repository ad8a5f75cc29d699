#if canImport(Glibc)
  import Glibc
#endif
import Spool
@testable import SpoolIO
import Testing

extension SpoolIOTests {
  /// `IOFile.allocateSpace` (`fallocate`) on real files in /tmp, on io_uring
  /// (`IORING_OP_FALLOCATE`) and on the thread fallback (`fallocate(2)`).
  @Suite struct IOFileSpaceTests {
    /// The file's size and its allocated bytes (`st_blocks` counts 512-byte units).
    static func sizes(_ path: String) -> (size: Int, allocated: Int) {
      var status = stat()
      guard stat(path, &status) == 0 else { return (-1, -1) }
      return (Int(status.st_size), Int(status.st_blocks) * 512)
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
  }
}

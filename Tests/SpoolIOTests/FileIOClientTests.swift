#if canImport(Glibc)
  import Glibc
#endif
import SpoolCore
import SpoolIO
import Testing

extension SpoolIOTests {
  @Suite struct FileIOClientTests {
    @Test(arguments: allBackends)
    func writesAtomicallyAndReadsBack(backend: IOBackend.Preference) async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await expectNoDescriptorLeak {
        try await withEngine(backend) { engine in
          let fileIO = FileIOClient.live(on: engine)
          let path = directory.file("state.json")
          try await fileIO.writeFileAtomically(path, Array(#"{"v":1}"#.utf8))
          try await fileIO.writeFileAtomically(path, Array(#"{"v":2}"#.utf8))
          #expect(try await fileIO.readFile(path) == Array(#"{"v":2}"#.utf8))
          // The temporary file was renamed away: only the destination remains.
          #expect(directory.entries() == ["state.json"])

          let large = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
          try await fileIO.writeFileAtomically(path, large)
          #expect(try await fileIO.readFile(path) == large)
          #expect(try await fileIO.status(path).size == 300_000)

          try await fileIO.appendToFile(directory.file("log"), Array("a".utf8))
          try await fileIO.appendToFile(directory.file("log"), Array("b".utf8))
          #expect(try await fileIO.readFile(directory.file("log")) == Array("ab".utf8))
          try await fileIO.removeFile(directory.file("log"))
          await expectIOError(ENOENT) { _ = try await fileIO.status(directory.file("log")) }
        }
      }
    }

    @Test(arguments: allBackends)
    func failuresNameThePath(backend: IOBackend.Preference) async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      try await expectNoDescriptorLeak {
        try await withEngine(backend) { engine in
          let fileIO = FileIOClient.live(on: engine)
          let missing = await expectIOError(ENOENT) { _ = try await fileIO.readFile("/nope") }
          #expect(missing?.description == #"open("/nope"): No such file or directory (ENOENT)"#)
          await expectIOError(EISDIR) { _ = try await fileIO.readFile(directory.path) }
          await expectIOError(ENOENT) {
            try await fileIO.writeFileAtomically("/nope/dir/file", [1])
          }
          // A failed atomic write leaves nothing behind.
          #expect(directory.entries().isEmpty)
        }
      }
    }

    @Test func testValueFailsWhenUsedUnexpectedly() async {
      await withKnownIssue {
        _ = try await FileIOClient.testValue.readFile("/etc/hostname")
      }
      await withKnownIssue {
        _ = try await NetworkClient.testValue.connect("127.0.0.1", 1)
      }
    }
  }
}

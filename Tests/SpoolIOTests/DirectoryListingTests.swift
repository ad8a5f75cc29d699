#if canImport(Glibc)
  import Glibc
#endif
@testable import SpoolIO
import Testing

extension SpoolIOTests {
  /// `FileOperations.entryNames(in:)`, which journals use to find their files.
  @Suite struct DirectoryListingTests {
    /// A folder of 3,000 entries with names of 4 to 255 bytes: `readdir` fills its buffer
    /// several times, each time ending in a record shorter than a `dirent`, which copied
    /// whole would read past the buffer (under AddressSanitizer, an overflow). Every name
    /// comes back once, byte for byte, multi-byte UTF-8 included.
    @Test func aLargeFolderListsEveryNameOnce() throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      var expected: Set<String> = []
      for index in 0..<3_000 {
        let prefix = "\(index)-é"
        let length = 1 + index % 255
        let name =
          prefix.utf8.count >= length
          ? prefix : prefix + String(repeating: "n", count: length - prefix.utf8.count)
        let fd = open(directory.file(name), O_CREAT | O_WRONLY | O_CLOEXEC, 0o644)
        try #require(fd >= 0, "could not create \(name): errno \(errno)")
        close(fd)
        expected.insert(name)
      }
      let folder = try #require(opendir(directory.path))
      defer { closedir(folder) }
      let names = FileOperations.entryNames(in: folder)
      #expect(names.count == expected.count + 2)
      #expect(Set(names) == expected.union([".", ".."]))
    }

    /// An empty folder lists only itself and its parent.
    @Test func anEmptyFolderListsDotAndDotDot() throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      let folder = try #require(opendir(directory.path))
      defer { closedir(folder) }
      #expect(FileOperations.entryNames(in: folder).sorted() == [".", ".."])
    }
  }
}

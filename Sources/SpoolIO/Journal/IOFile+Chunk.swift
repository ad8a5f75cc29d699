#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif
import SpoolCore

extension IOFile {
  /// Appends the first `count` bytes of `buffer` at the end of the file, with no copy: the
  /// operation holds `buffer` until its completion, as every write does.
  func append(_ buffer: IOBuffer, count: Int) async throws {
    var written = 0
    while written < count {
      let taken = try await engine.run(
        .write(
          fd: descriptor, buffer: buffer, start: written, count: count - written, offset: .max),
        target: .path(path))
      if taken == 0 {
        throw IOError(errno: EIO, operation: "write", target: .path(path))
      }
      written += taken
    }
  }
}

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif
import SpoolCore

extension IOFile {
  /// Writes the first `count` bytes of `buffer` at `offset`, with no copy: the operation
  /// holds `buffer` until its completion, as every write does. A short write is followed by
  /// another for the rest, at the offset after the bytes taken.
  ///
  /// An explicit offset rather than the file position: on io_uring, a buffered write to the
  /// file position that a full disk cuts short can leave the position past the bytes the
  /// kernel reported, so the next write would leave a gap of other bytes in the file.
  package func write(_ buffer: IOBuffer, count: Int, at offset: UInt64) async throws {
    var written = 0
    while written < count {
      let taken = try await engine.run(
        .write(
          fd: descriptor, buffer: buffer, start: written, count: count - written,
          offset: offset + UInt64(written)),
        target: .path(path))
      if taken == 0 {
        throw IOError(errno: EIO, operation: "write", target: .path(path))
      }
      written += taken
    }
  }

  /// Flushes the file's data, and the metadata needed to read it back (its size), to the
  /// storage device: `fdatasync`, on io_uring `IORING_OP_FSYNC` with `IORING_FSYNC_DATASYNC`.
  /// The file must be open.
  package func syncData() async throws {
    _ = try await engine.run(.fdatasync(fd: descriptor), target: .path(path))
  }
}

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif
import SpoolCore

extension IOFile {
  /// What ``allocateSpace(_:offset:length:)`` does with a byte range: Linux's `FALLOC_FL_*`
  /// bits of `fallocate(2)`, whose values are part of the kernel's ABI (`<linux/falloc.h>`,
  /// which SwiftGlibc does not import).
  package struct SpaceMode: OptionSet, Sendable, Hashable {
    package let rawValue: Int32

    package init(rawValue: Int32) { self.rawValue = rawValue }

    /// Allocates the range without changing the file's size (`FALLOC_FL_KEEP_SIZE`): blocks
    /// past the end are reserved, and the file still ends where it ended.
    package static let keepSize = SpaceMode(rawValue: 0x01)
    /// Releases the range's blocks (`FALLOC_FL_PUNCH_HOLE`); needs ``keepSize``.
    package static let punchHole = SpaceMode(rawValue: 0x02)
  }

  /// Allocates (or, with ``SpaceMode/punchHole``, releases) the disk space of `length` bytes
  /// at `offset`: `fallocate(2)`, on io_uring `IORING_OP_FALLOCATE`. The file must be open
  /// for writing.
  ///
  /// A file system that cannot do it fails with `EOPNOTSUPP` (and a descriptor that is not a
  /// regular file with `ENODEV` or `ESPIPE`); a full disk with `ENOSPC`. With
  /// ``SpaceMode/keepSize``, neither the file's size nor its bytes change, whatever happens.
  package func allocateSpace(_ mode: SpaceMode, offset: UInt64, length: UInt64) async throws {
    try checkOpen("fallocate")
    _ = try await engine.run(
      .fallocate(fd: descriptor, mode: mode.rawValue, offset: offset, length: length),
      target: .path(path))
  }

  /// Sets the file's size to `length` bytes (`ftruncate(2)`): cuts what lies past it, or
  /// extends the file with zeros up to it. The file must be open for writing.
  ///
  /// Truncating releases the blocks a file system holds past the new end, also those reserved
  /// with ``SpaceMode/keepSize`` past the old one, which some file systems (ext4) keep through
  /// a ``SpaceMode/punchHole`` there: truncating to the current size releases just those.
  ///
  /// On io_uring it is `IORING_OP_FTRUNCATE` where the kernel has it (Linux 6.9); elsewhere,
  /// and on the thread backend, `ftruncate(2)` on a worker thread, never on the ring's thread.
  ///
  /// - Parameter length: The new size, at most `Int64.max`.
  /// - Throws: `IOError` naming `ftruncate` and the path (`EINVAL` for a length beyond
  ///   `Int64.max` or a file not open for writing; `EFBIG`, `EIO`, …), or the descriptor
  ///   (`EBADF` after ``close()``); `CancellationError` when the task was cancelled first.
  ///
  /// ```swift
  /// let size = try await file.status().size
  /// try await file.truncate(to: size)  // releases what was reserved past the end
  /// ```
  package func truncate(to length: UInt64) async throws {
    try checkOpen("ftruncate")
    if length > UInt64(Int64.max) {
      throw IOError(errno: EINVAL, operation: "ftruncate", target: .path(path))
    }
    _ = try await engine.run(.ftruncate(fd: descriptor, length: length), target: .path(path))
  }
}

/// What `stat` reports about a file: its size, kind, modification time and the space it
/// takes on disk.
///
/// ```swift
/// let status = try await fileIO.status("/etc/hostname")
/// if status.kind == .regular { print(status.size) }
/// ```
public struct FileStatus: Sendable, Hashable {
  /// The kind of a file-system entry.
  public enum Kind: Sendable, Hashable {
    case regular, directory, symbolicLink, socket, pipe, characterDevice, blockDevice, unknown
  }

  /// The size in bytes.
  public var size: UInt64
  /// The kind of entry.
  public var kind: Kind
  /// The permission bits (`0o644`).
  public var permissions: UInt32
  /// The modification time, in nanoseconds since the Unix epoch.
  public var modifiedNanosecondsSinceEpoch: Int64
  /// The inode number.
  public var inode: UInt64
  /// The bytes the file system allocated for the file (`st_blocks` × 512): less than `size`
  /// for a sparse file, more when space is reserved past its end (`fallocate` with
  /// `FALLOC_FL_KEEP_SIZE`); 0 when unknown.
  public var allocatedBytes: UInt64
  /// The file system's preferred I/O block size for the file (`st_blksize`); 0 when unknown.
  public var blockSize: UInt32

  /// Creates a status; the live clients fill it from `statx`.
  ///
  /// ```swift
  /// let status = FileStatus(size: 5, kind: .regular)
  /// let reserved = FileStatus(size: 5, kind: .regular, allocatedBytes: 1 << 20, blockSize: 4_096)
  /// ```
  public init(
    size: UInt64,
    kind: Kind,
    permissions: UInt32 = 0o644,
    modifiedNanosecondsSinceEpoch: Int64 = 0,
    inode: UInt64 = 0,
    allocatedBytes: UInt64 = 0,
    blockSize: UInt32 = 0
  ) {
    self.size = size
    self.kind = kind
    self.permissions = permissions
    self.modifiedNanosecondsSinceEpoch = modifiedNanosecondsSinceEpoch
    self.inode = inode
    self.allocatedBytes = allocatedBytes
    self.blockSize = blockSize
  }
}

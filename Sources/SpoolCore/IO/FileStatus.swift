/// What `stat` reports about a file: its size, kind and modification time.
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

  /// Creates a status; the live clients fill it from `statx`.
  ///
  /// ```swift
  /// let status = FileStatus(size: 5, kind: .regular)
  /// ```
  public init(
    size: UInt64,
    kind: Kind,
    permissions: UInt32 = 0o644,
    modifiedNanosecondsSinceEpoch: Int64 = 0,
    inode: UInt64 = 0
  ) {
    self.size = size
    self.kind = kind
    self.permissions = permissions
    self.modifiedNanosecondsSinceEpoch = modifiedNanosecondsSinceEpoch
    self.inode = inode
  }
}

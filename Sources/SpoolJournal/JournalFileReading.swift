#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif
import SpoolCore
import SpoolIO

/// Reads one journal file into memory, refusing anything but a regular file.
///
/// A journal is only ever a regular file: a character device (`/dev/zero`) never ends, a FIFO
/// blocks its opener until a writer comes, a socket or a directory cannot be read as one. The
/// path is checked before it is opened (`statx`, following symbolic links, so that opening a
/// FIFO never waits) and the open descriptor again after (`fstat`, in case the path was
/// replaced meanwhile); then exactly the size the descriptor reported is read, so a read is
/// bounded even if the file grows. Every step runs on the engine and is cancellable.
enum JournalFileReading {
  /// The file's bytes, or its first `limit`; `IOError` when it cannot be read,
  /// ``JournalError`` when it is not a regular file.
  static func read(
    _ path: String, engine: IOEngine, upTo limit: Int = .max
  ) async throws -> [UInt8] {
    let before = try await FileOperations.status(path, engine: engine)
    try requireRegular(before.kind, path: path)
    let file = try await IOFile.open(path, on: engine)
    do {
      let status = try await file.status()
      try requireRegular(status.kind, path: path)
      let size = min(Int(clamping: status.size), limit)
      var bytes: [UInt8] = []
      bytes.reserveCapacity(size)
      while bytes.count < size {
        try Task.checkCancellation()
        let chunk = try await file.read(
          upTo: min(size - bytes.count, 1 << 24), at: UInt64(bytes.count))
        if chunk.isEmpty { break }
        bytes.append(contentsOf: chunk)
      }
      try await file.close()
      return bytes
    } catch {
      try? await file.close()
      throw error
    }
  }

  /// Throws ``JournalError/Code/notARegularFile`` unless `kind` is `.regular`.
  static func requireRegular(_ kind: FileStatus.Kind, path: String) throws(JournalError) {
    guard kind != .regular else { return }
    throw JournalError(file: path, offset: 0, problem: .notARegularFile(describe(kind)))
  }

  /// What the file at `path` is, when something other than a regular file exists there, for a
  /// recorder that is about to create it: `nil` when nothing or a regular file is there.
  static func nonRegularKind(at path: String) -> String? {
    var status = stat()
    guard stat(path, &status) == 0 else { return nil }
    let kind: FileStatus.Kind
    switch status.st_mode & S_IFMT {
    case S_IFREG: return nil
    case S_IFDIR: kind = .directory
    case S_IFSOCK: kind = .socket
    case S_IFIFO: kind = .pipe
    case S_IFCHR: kind = .characterDevice
    case S_IFBLK: kind = .blockDevice
    default: kind = .unknown
    }
    return describe(kind)
  }

  static func describe(_ kind: FileStatus.Kind) -> String {
    switch kind {
    case .regular: "a regular file"
    case .directory: "a directory"
    case .symbolicLink: "a symbolic link"
    case .socket: "a socket"
    case .pipe: "a FIFO"
    case .characterDevice: "a character device"
    case .blockDevice: "a block device"
    case .unknown: "a file of an unknown kind"
    }
  }
}

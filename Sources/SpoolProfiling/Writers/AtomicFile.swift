#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Writes a whole file atomically: a temporary file in the same directory, `fsync`, then
/// `rename` over the destination. A reader sees the old file or the new one, never a part.
enum AtomicFile {
  /// Replaces the file at `path` with `bytes`.
  ///
  /// - Throws: ``ReportFileError`` with the failing operation and errno; the temporary file is
  ///   removed on failure.
  static func write(_ bytes: [UInt8], to path: String) throws(ReportFileError) {
    func fail(_ operation: String, _ code: Int32) -> ReportFileError {
      ReportFileError(path: path, problem: .system(operation: operation, errno: code))
    }
    let temporary = "\(path).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { throw fail("create \(temporary)", errno) }
    var written = 0
    while written < bytes.count {
      let count = bytes.withUnsafeBytes {
        Glibc.write(descriptor, $0.baseAddress! + written, bytes.count - written)
      }
      if count < 0 {
        if errno == EINTR { continue }
        let code = errno
        close(descriptor)
        unlink(temporary)
        throw fail("write", code)
      }
      written += count
    }
    guard fsync(descriptor) == 0 else {
      let code = errno
      close(descriptor)
      unlink(temporary)
      throw fail("fsync", code)
    }
    close(descriptor)
    guard rename(temporary, path) == 0 else {
      let code = errno
      unlink(temporary)
      throw fail("rename", code)
    }
  }
}

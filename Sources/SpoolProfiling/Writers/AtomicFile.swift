#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Writes a whole file atomically: a temporary file in the same directory, `fsync`, then a
/// final step that gives it its name. A reader sees no file, the old file or the new one,
/// never a part.
///
/// The final step is `rename` for ``write(_:to:)``, which replaces the destination, and `link`
/// for ``create(_:atFirstFreeOf:)``, which never does.
enum AtomicFile {
  /// Replaces the file at `path` with `bytes`.
  ///
  /// - Throws: ``ReportFileError`` with the failing operation and errno; the temporary file is
  ///   removed on failure.
  static func write(_ bytes: [UInt8], to path: String) throws(ReportFileError) {
    let temporary = try writeTemporary(bytes, beside: path)
    guard rename(temporary, path) == 0 else {
      let code = errno
      unlink(temporary)
      throw ReportFileError(path: path, problem: .system(operation: "rename", errno: code))
    }
  }

  /// Creates a file with `bytes` under the first of `paths` that names no file yet, and
  /// returns that path; never replaces a file, even one made by another process meanwhile.
  ///
  /// `rename` cannot refuse to replace its destination (`renameat2`'s `RENAME_NOREPLACE` can,
  /// but glibc declares it only under `_GNU_SOURCE`, and not every file system supports it),
  /// and creating the final name with `O_EXCL` and writing into it would let a reader, or a
  /// crash, see half a file. So the complete temporary file is hard-linked to the final name:
  /// `link` fails with `EEXIST` when the name is taken, atomically, and then the next name is
  /// tried with the same temporary file. The temporary name is unlinked at the end. (A file
  /// system without hard links fails here, with the error of `link`.)
  ///
  /// - Precondition: `paths` are all in one directory (the temporary file is made beside the
  ///   first).
  /// - Throws: ``ReportFileError`` naming the first path, with the failing operation and errno
  ///   (`EEXIST` when every path is taken); nothing is left behind on failure.
  static func create(
    _ bytes: [UInt8], atFirstFreeOf paths: some Sequence<String>
  ) throws(ReportFileError) -> String {
    var iterator = paths.makeIterator()
    guard let first = iterator.next() else {
      preconditionFailure("Internal inconsistency: no path to create a file at")
    }
    let temporary = try writeTemporary(bytes, beside: first)
    // Linked or not, the temporary name goes: on success the file lives on under its new name.
    defer { unlink(temporary) }
    var candidate: String? = first
    while let path = candidate {
      if link(temporary, path) == 0 { return path }
      let code = errno
      guard code == EEXIST else {
        throw ReportFileError(
          path: first, problem: .system(operation: "link to \(path)", errno: code))
      }
      candidate = iterator.next()
    }
    throw ReportFileError(path: first, problem: .system(operation: "link", errno: EEXIST))
  }

  /// Writes `bytes` to a new temporary file in `path`'s directory and `fsync`s it; returns its
  /// path.
  ///
  /// - Throws: ``ReportFileError`` naming `path`; the temporary file is removed on failure.
  private static func writeTemporary(
    _ bytes: [UInt8], beside path: String
  ) throws(ReportFileError) -> String {
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
    return temporary
  }
}

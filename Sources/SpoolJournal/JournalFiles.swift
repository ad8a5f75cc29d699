#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif
import SpoolCore
import SpoolIO

/// The files of a journal at a path, found by listing its folder: `path.N.journal`.
///
/// A journal's files are numbered without holes, but not always from 0: compaction removes
/// the files before a snapshot. So the files are listed rather than probed from 0.
enum JournalFiles {
  /// The indices of the journal's files, in increasing order; empty when there is none or
  /// the folder does not exist.
  ///
  /// - Throws: ``JournalError`` with the `IOError` of `opendir` for another failure.
  static func indices(of path: String) throws(JournalError) -> [Int] {
    let folder = FileOperations.directoryName(of: path)
    let base = String(path.split(separator: "/", omittingEmptySubsequences: false).last ?? "")
    guard let directory = opendir(folder) else {
      let code = errno
      if code == ENOENT { return [] }
      throw JournalError(
        file: JournalFormat.filePath(path, index: 0), offset: 0,
        problem: .io(IOError(errno: code, operation: "opendir", target: .path(folder))))
    }
    defer { closedir(directory) }
    return FileOperations.entryNames(in: directory)
      .compactMap { JournalFormat.fileIndex(of: $0, base: base) }.sorted()
  }

  /// The header of the file at `path`, read alone (not the records after it).
  ///
  /// - Throws: ``JournalError``: not a regular file, an I/O failure, or what the header's
  ///   parser finds wrong (``JournalError/Code/empty`` for an empty file).
  static func header(
    of path: String, engine: IOEngine, version: UInt16 = JournalFormat.version
  ) async throws -> JournalFileParser.Header {
    // The fixed fields and the type name's length, then the rest of the header.
    let fixedPart = 32
    var bytes = try await JournalFileReading.read(path, engine: engine, upTo: fixedPart)
    let parser = JournalFileParser(file: path, bytes: bytes)
    if let nameLength = parser.fixed(UInt16.self, at: fixedPart - 2) {
      bytes = try await JournalFileReading.read(
        path, engine: engine, upTo: fixedPart + Int(nameLength) + 18)
    }
    return try JournalFileParser(file: path, bytes: bytes, version: version).header()
  }

  /// Removes the journal's files whose index is below `index`, lowest first, then syncs the
  /// folder: a crash partway leaves the files from some index up to `index`, without a hole.
  ///
  /// - Returns: How many files were removed.
  static func remove(
    of path: String, below index: Int, engine: IOEngine
  ) async throws -> Int {
    var removed = 0
    for stale in try indices(of: path) where stale < index {
      let file = JournalFormat.filePath(path, index: stale)
      try await FileOperations.removeFile(file, engine: engine)
      removed += 1
    }
    if removed > 0 { try await syncFolder(of: path, engine: engine) }
    return removed
  }

  /// Syncs the folder of the journal at `path`, so that a file created or removed in it stays
  /// so after a power loss: syncing a file's data does not sync its name.
  static func syncFolder(of path: String, engine: IOEngine) async throws {
    let folder = try await IOFile.open(
      FileOperations.directoryName(of: path), options: [.read, .directory], on: engine)
    do {
      try await folder.sync()
      try await folder.close()
    } catch {
      try? await folder.close()
      throw error
    }
  }
}

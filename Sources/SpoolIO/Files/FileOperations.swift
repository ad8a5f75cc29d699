#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif
import SpoolCore

/// Whole-file operations built on ``IOFile``: what `FileIOClient`'s live value runs.
package enum FileOperations {
  package static func readFile(_ path: String, engine: IOEngine) async throws -> [UInt8] {
    let file = try await IOFile.open(path, on: engine)
    do {
      let contents = try await file.readToEnd()
      try await file.close()
      return contents
    } catch {
      try? await file.close()
      throw error
    }
  }

  /// The names of the entries of the open folder `directory` (from `opendir`), read to its
  /// end, "." and ".." included.
  ///
  /// ```swift
  /// if let folder = opendir("/tmp") {
  ///   defer { closedir(folder) }
  ///   let names = FileOperations.entryNames(in: folder)
  /// }
  /// ```
  package static func entryNames(in directory: OpaquePointer) -> [String] {
    // `readdir` returns records of `d_reclen` bytes packed in a buffer, not whole `dirent`s:
    // copying `pointee` reads `MemoryLayout<dirent>.size` bytes, past the end of the buffer
    // after its last short record (a crash where the buffer ends a mapping). So the name is
    // read in place, up to its NUL, which its record holds.
    let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
    var names: [String] = []
    while let entry = readdir(directory) {
      let name = (UnsafeRawPointer(entry) + nameOffset).assumingMemoryBound(to: CChar.self)
      names.append(String(cString: name))
    }
    return names
  }

  /// Writes `bytes` to a temporary file next to `path`, fsyncs it, renames it over `path`, then
  /// fsyncs the directory so that the rename itself survives a crash.
  package static func writeFileAtomically(
    _ path: String, _ bytes: [UInt8], engine: IOEngine
  ) async throws {
    let directory = directoryName(of: path)
    let unique = "\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
    let temporary = "\(directory)/.\(baseName(of: path)).spool-\(unique)"
    let file = try await IOFile.open(
      temporary, options: [.write, .create, .exclusive], on: engine)
    do {
      try await file.write(bytes, at: 0)
      try await file.sync()
      try await file.close()
      _ = try await engine.run(
        .rename(from: IOBuffer(cString: temporary), to: IOBuffer(cString: path)),
        target: .path(path))
    } catch {
      try? await file.close()
      _ = try? await engine.performIgnoringCancellation(.unlink(path: IOBuffer(cString: temporary)))
      throw error
    }
    let directoryFile = try await IOFile.open(directory, options: [.read, .directory], on: engine)
    do {
      try await directoryFile.sync()
      try await directoryFile.close()
    } catch {
      try? await directoryFile.close()
      throw error
    }
  }

  static func appendToFile(_ path: String, _ bytes: [UInt8], engine: IOEngine) async throws {
    let file = try await IOFile.open(path, options: [.write, .create, .append], on: engine)
    do {
      try await file.append(bytes)
      try await file.close()
    } catch {
      try? await file.close()
      throw error
    }
  }

  package static func status(_ path: String, engine: IOEngine) async throws -> FileStatus {
    try await FileStatus.fetch(fd: -1, path: path, target: .path(path), engine: engine)
  }

  package static func removeFile(_ path: String, engine: IOEngine) async throws {
    _ = try await engine.run(.unlink(path: IOBuffer(cString: path)), target: .path(path))
  }

  package static func directoryName(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
  }

  static func baseName(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return path }
    return String(path[path.index(after: slash)...])
  }
}

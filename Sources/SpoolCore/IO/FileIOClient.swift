/// File operations for effects, as a dependency: read a whole file, write one atomically.
///
/// The live value (in `SpoolIO`) runs on the I/O engine, so an effect that reads or writes a
/// file never blocks one of Swift's cooperative threads. The test value fails the test when an
/// endpoint is used without being overridden. Errors are ``IOError``s; a cancelled effect gets
/// `CancellationError`.
///
/// ```swift
/// @Dependency(\.fileIO) var fileIO
///
/// case .saveTapped:
///   return .run { [text = state.text] send in
///     try await fileIO.writeFileAtomically("/var/lib/app/note.txt", Array(text.utf8))
///     await send(.saved)
///   }
/// ```
public struct FileIOClient: Sendable {
  /// Reads the whole file at a path.
  public var readFile: @Sendable (_ path: String) async throws -> [UInt8]

  /// Replaces the file at a path with the given bytes, atomically: the bytes go to a temporary
  /// file in the same directory, which is fsynced and then renamed over the destination. A
  /// reader sees the old contents or the new ones, never a mix.
  public var writeFileAtomically: @Sendable (_ path: String, _ bytes: [UInt8]) async throws -> Void

  /// Appends bytes at the end of the file at a path, creating it when it does not exist.
  public var appendToFile: @Sendable (_ path: String, _ bytes: [UInt8]) async throws -> Void

  /// Reports the size and kind of the file at a path.
  public var status: @Sendable (_ path: String) async throws -> FileStatus

  /// Removes the file at a path.
  public var removeFile: @Sendable (_ path: String) async throws -> Void

  /// Creates a client from its endpoints; tests override single endpoints instead.
  ///
  /// ```swift
  /// let client = FileIOClient(
  ///   readFile: { _ in Array("hello".utf8) },
  ///   writeFileAtomically: { _, _ in },
  ///   appendToFile: { _, _ in },
  ///   status: { _ in FileStatus(size: 5, kind: .regular) },
  ///   removeFile: { _ in }
  /// )
  /// ```
  public init(
    readFile: @escaping @Sendable (_ path: String) async throws -> [UInt8],
    writeFileAtomically: @escaping @Sendable (_ path: String, _ bytes: [UInt8]) async throws
      -> Void,
    appendToFile: @escaping @Sendable (_ path: String, _ bytes: [UInt8]) async throws -> Void,
    status: @escaping @Sendable (_ path: String) async throws -> FileStatus,
    removeFile: @escaping @Sendable (_ path: String) async throws -> Void
  ) {
    self.readFile = readFile
    self.writeFileAtomically = writeFileAtomically
    self.appendToFile = appendToFile
    self.status = status
    self.removeFile = removeFile
  }
}

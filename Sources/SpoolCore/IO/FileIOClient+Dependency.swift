import Dependencies
import IssueReporting

extension FileIOClient: TestDependencyKey {
  /// A client whose every endpoint reports an issue and throws when called; override the
  /// endpoints a test expects with `withDependencies`.
  ///
  /// ```swift
  /// let store = withDependencies {
  ///   $0.fileIO.readFile = { _ in Array("saved".utf8) }
  /// } operation: {
  ///   Store(initialState: Editor.State()) { Editor() }
  /// }
  /// ```
  public static var testValue: FileIOClient {
    FileIOClient(
      readFile: unimplemented("FileIOClient.readFile"),
      writeFileAtomically: unimplemented("FileIOClient.writeFileAtomically"),
      appendToFile: unimplemented("FileIOClient.appendToFile"),
      status: unimplemented("FileIOClient.status"),
      removeFile: unimplemented("FileIOClient.removeFile")
    )
  }
}

extension DependencyValues {
  /// File operations for effects. The live value is `SpoolIO`'s engine-backed client (import
  /// `SpoolIO` to register it); tests get a value that fails when used unexpectedly.
  ///
  /// ```swift
  /// @Dependency(\.fileIO) var fileIO
  /// let bytes = try await fileIO.readFile("/etc/hostname")
  /// ```
  public var fileIO: FileIOClient {
    get { self[FileIOClient.self] }
    set { self[FileIOClient.self] = newValue }
  }
}

import Dependencies
import SpoolCore

extension FileIOClient: DependencyKey {
  /// The client on the shared engine (io_uring, or the thread pool where io_uring is
  /// unavailable).
  ///
  /// ```swift
  /// @Dependency(\.fileIO) var fileIO  // this value, in a running app
  /// ```
  public static var liveValue: FileIOClient { .live(on: .shared) }

  /// A client whose operations run on `engine`.
  ///
  /// ```swift
  /// let fileIO = FileIOClient.live(on: try IOEngine(backend: .threads))
  /// try await fileIO.writeFileAtomically("/tmp/state.json", Array("{}".utf8))
  /// ```
  public static func live(on engine: IOEngine) -> FileIOClient {
    FileIOClient(
      readFile: { try await FileOperations.readFile($0, engine: engine) },
      writeFileAtomically: {
        try await FileOperations.writeFileAtomically($0, $1, engine: engine)
      },
      appendToFile: { try await FileOperations.appendToFile($0, $1, engine: engine) },
      status: { try await FileOperations.status($0, engine: engine) },
      removeFile: { try await FileOperations.removeFile($0, engine: engine) }
    )
  }
}

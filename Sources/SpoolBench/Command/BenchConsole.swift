import Foundation

/// Where the bench command writes: standard output and standard error, or, in tests, buffers.
package struct BenchConsole: Sendable {
  /// Writes bytes to standard output.
  package var output: @Sendable ([UInt8]) -> Void
  /// Writes bytes to standard error.
  package var error: @Sendable ([UInt8]) -> Void
  /// Whether to draw the progress bar (on standard error, only when it is a terminal).
  package var showsProgress: Bool

  package init(
    output: @escaping @Sendable ([UInt8]) -> Void, error: @escaping @Sendable ([UInt8]) -> Void,
    showsProgress: Bool
  ) {
    self.output = output
    self.error = error
    self.showsProgress = showsProgress
  }

  /// The process's standard output and error.
  package static var standard: BenchConsole {
    BenchConsole(
      output: { FileHandle.standardOutput.write(Data($0)) },
      error: { FileHandle.standardError.write(Data($0)) },
      showsProgress: isatty(STDERR_FILENO) == 1)
  }

  /// Writes `text` to standard output.
  package func print(_ text: String) {
    output(Array(text.utf8))
  }

  /// Writes `error: message` and a newline to standard error: the one line of a failure.
  package func fail(_ message: String) {
    error(Array("error: \(message)\n".utf8))
  }
}

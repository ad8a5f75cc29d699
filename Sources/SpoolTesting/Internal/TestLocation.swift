import IssueReporting

/// A place in a test: where a step was written, and where its failures are reported.
struct TestLocation: Sendable {
  var fileID: StaticString
  var filePath: StaticString
  var line: UInt
  var column: UInt

  /// Reports `message` as a test failure at this location.
  func fail(_ message: String) {
    reportIssue(message, fileID: fileID, filePath: filePath, line: line, column: column)
  }

  /// Reports `message` as an expected failure (a skipped assertion of a non-exhaustive test
  /// store that shows its skipped assertions).
  func skipped(_ message: String) {
    withExpectedIssue(fileID: fileID, filePath: filePath, line: line, column: column) {
      reportIssue(message, fileID: fileID, filePath: filePath, line: line, column: column)
    }
  }
}

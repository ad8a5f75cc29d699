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

  /// Shows `message`, a skipped assertion of a non-exhaustive test store that shows its skipped
  /// assertions, without failing the test: as a known issue under Swift Testing and under
  /// XCTest on Apple platforms, as a printed line under XCTest elsewhere.
  func skipped(_ message: String) {
    // TCA's wording, which matchers of its skipped assertions look for first.
    let message = "Skipped assertions: …\n\n\(message)"
    #if !canImport(Darwin)
      // XCTest on Linux has no expected failures: IssueReporting turns `withExpectedIssue`
      // there into a failure of its own, which would make the option fail every test it shows.
      if TestContext.current == .xcTest {
        print("\(filePath):\(line): (not a failure) \(message)")
        return
      }
    #endif
    withExpectedIssue(fileID: fileID, filePath: filePath, line: line, column: column) {
      reportIssue(message, fileID: fileID, filePath: filePath, line: line, column: column)
    }
  }
}

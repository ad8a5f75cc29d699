import Spool
import SpoolTesting
import XCTest

/// Under XCTest, which on Linux cannot expect a failure, a test store that shows its skipped
/// assertions prints them and the test passes (IssueReporting's `withExpectedIssue` would turn
/// each into a failure there).
final class SkippedAssertionsXCTests: XCTestCase {
  func testShownSkippedAssertionsDoNotFailAnXCTest() async {
    let store = TestStore(initialState: Harness.State()) {
      Harness { .merge(.send(.increment), .send(.rename("Blob"))) }
    }
    store.exhaustivity = .off(showSkippedAssertions: true)
    // `receive(\.rename)` skips the `increment` that `start`'s effect sent first: a skipped
    // assertion, shown.
    await store.send(.start)
    await store.receive(\.rename) { $0.name = "Blob" }
  }
}

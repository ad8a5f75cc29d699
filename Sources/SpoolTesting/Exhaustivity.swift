/// How much a ``TestStore`` checks: everything, or only what the test asserts.
///
/// ```swift
/// let store = TestStore(initialState: App.State()) { App() }
/// store.exhaustivity = .off
/// await store.send(.login(.submitButtonTapped))
/// await store.receive(\.login.delegate.didLogin) { $0.selectedTab = .activity }
/// ```
public enum Exhaustivity: Equatable, Sendable {
  /// Every state change, every received action and every effect must be asserted: a change
  /// the test does not describe, an action it does not receive, an effect still running at the
  /// end, all fail the test. The default, as in TCA.
  case on

  /// Only what the test asserts is checked: a `send` or `receive` closure checks the fields it
  /// sets, received actions the test does not ask for are skipped, and effects still running at
  /// the end are cancelled quietly.
  ///
  /// - Parameter showSkippedAssertions: Whether to report what was skipped as expected
  ///   failures (known issues), so that a test's log shows what an exhaustive test would have
  ///   had to assert.
  case off(showSkippedAssertions: Bool)

  /// Only what the test asserts is checked; skipped assertions are not shown.
  public static var off: Self { .off(showSkippedAssertions: false) }
}

import CustomDump
import Dependencies

extension TestStore {
  /// Checks the change from `before` to `after` against `update`, as ``exhaustivity`` says.
  ///
  /// Exhaustive: applying `update` to `before` must give `after` exactly. Not exhaustive:
  /// applying `update` to `after` must change nothing, so only the fields `update` sets are
  /// checked.
  func expectState(
    from before: State,
    to after: State,
    update: ((inout State) throws -> Void)?,
    at location: TestLocation
  ) {
    let update = update.map(withTestDependencies)
    switch exhaustivity {
    case .on:
      expectExhaustiveState(from: before, to: after, update: update, report: location.fail)
    case let .off(showSkippedAssertions):
      var expected = after
      do {
        try update?(&expected)
      } catch {
        location.fail("Threw error: \(error)")
        return
      }
      if expected != after {
        location.fail(mismatch(expected: expected, actual: after, hasUpdate: update != nil))
      } else if showSkippedAssertions {
        expectExhaustiveState(
          from: before, to: after, update: update, report: location.skipped
        )
      }
    }
  }

  /// `update`, run with the test store's dependencies, as its reducer runs: an assertion
  /// closure that reads `@Dependency(\.date.now)` sees the test's date, as in TCA.
  func withTestDependencies(
    _ update: @escaping (inout State) throws -> Void
  ) -> (inout State) throws -> Void {
    { [dependencies] state in
      try DependencyValues.$_current.withValue(dependencies) { try update(&state) }
    }
  }

  private func expectExhaustiveState(
    from before: State,
    to after: State,
    update: ((inout State) throws -> Void)?,
    report: (String) -> Void
  ) {
    var expected = before
    do {
      try update?(&expected)
    } catch {
      report("Threw error: \(error)")
      return
    }
    if expected != after {
      report(mismatch(expected: expected, actual: after, hasUpdate: update != nil))
    } else if update != nil, after == before {
      report(
        """
        Expected state to change, but no change occurred.

        The trailing closure made no observable modifications to state. If no change to state \
        is expected, omit the trailing closure.
        """
      )
    }
  }

  /// The failure message for `actual` where `expected` was expected; `hasUpdate` says whether
  /// the test described a change (a trailing closure) or expected none.
  func mismatch(expected: State, actual: State, hasUpdate: Bool) -> String {
    let preamble =
      !hasUpdate
      ? "State was not expected to change, but a change occurred: …"
      : "A state change does not match expectation: …"
    guard let difference = diff(expected, actual, format: .proportional) else {
      return """
        \(preamble)

          Expected:
        \(describe(expected).indented(by: 2))

          Actual:
        \(describe(actual).indented(by: 2))
        """
    }
    // TCA indents the diff by four spaces: tests ported from it compare the whole text.
    return """
      \(preamble)

      \(difference.indented(by: 4))

      (Expected: −, Actual: +)
      """
  }
}

/// A workload's run did not do what it was asked: actions lost or duplicated, effects left
/// running, a wrong answer. The run reports no figure, and the command exits with status 1.
///
/// Throw it from a workload's `check` (or from a driver or a baseline) with what was wrong; the
/// harness fills in ``measurement`` with the label of the measurement that failed.
///
/// ```swift
/// check: { state, actions in
///   guard state.count == actions else {
///     throw WorkloadCheckError("counted \(state.count) actions, expected \(actions)")
///   }
/// }
/// // error: checkout · spool: counted 999 actions, expected 1000
/// ```
public struct WorkloadCheckError: Error, Sendable, CustomStringConvertible {
  /// The measurement that failed its check, `counter · spool`; empty until the harness names
  /// it.
  public var measurement: String
  /// What was wrong.
  public var problem: String

  /// A failed check: `problem` says what was wrong, in a few words.
  ///
  /// ```swift
  /// throw WorkloadCheckError("checksum 41, expected 42: an action was lost")
  /// ```
  public init(_ problem: String) {
    self.measurement = ""
    self.problem = problem
  }

  /// A failed check of the measurement labelled `measurement`.
  package init(measurement: String, problem: String) {
    self.measurement = measurement
    self.problem = problem
  }

  /// `measurement: problem`, or the problem alone when no measurement is named.
  public var description: String {
    measurement.isEmpty ? problem : "\(measurement): \(problem)"
  }
}

/// Throws a ``WorkloadCheckError`` unless `condition` holds.
package func check(
  _ condition: Bool, _ measurement: String, _ problem: @autoclosure () -> String
) throws(WorkloadCheckError) {
  guard condition else { throw WorkloadCheckError(measurement: measurement, problem: problem()) }
}

/// Throws unless `counted == expected`.
package func checkCount(
  _ counted: Int, expected: Int, _ measurement: String, what: String = "actions"
) throws(WorkloadCheckError) {
  try check(
    counted == expected, measurement,
    "lost or duplicated \(what): counted \(counted), expected \(expected)")
}

/// A workload's run did not do what it was asked: actions lost or duplicated, effects left
/// running, a wrong answer. The run reports no figure.
///
/// ```swift
/// do {
///   _ = try await Workload.named("counter")!.run(options, progress: progress)
/// } catch let error as WorkloadCheckError {
///   print(error)  // counter · spool: counted 999 actions, expected 1000
/// }
/// ```
public struct WorkloadCheckError: Error, Sendable, CustomStringConvertible {
  /// The measurement that failed its check, `counter · spool`.
  public var measurement: String
  /// What was wrong.
  public var problem: String

  /// `measurement: problem`.
  public var description: String { "\(measurement): \(problem)" }
}

/// Throws a ``WorkloadCheckError`` unless `condition` holds.
func check(
  _ condition: Bool, _ measurement: String, _ problem: @autoclosure () -> String
) throws(WorkloadCheckError) {
  guard condition else { throw WorkloadCheckError(measurement: measurement, problem: problem()) }
}

/// Throws unless `counted == expected`.
func checkCount(_ counted: Int, expected: Int, _ measurement: String, what: String = "actions")
  throws(WorkloadCheckError)
{
  try check(
    counted == expected, measurement,
    "lost or duplicated \(what): counted \(counted), expected \(expected)")
}

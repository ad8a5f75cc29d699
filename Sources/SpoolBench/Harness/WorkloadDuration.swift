/// A run length as `spool bench soak --duration` takes it: `500ms`, `60s`, `2m`, `1h`, or a
/// plain number of seconds (`90`, `1.5`).
///
/// The number is a non-negative decimal (digits, at most one `.`); the unit, when present,
/// follows it directly. The result must be greater than zero and at most a day.
///
/// ```swift
/// let duration = try WorkloadDuration(parsing: "2m").duration  // .seconds(120)
/// ```
public struct WorkloadDuration: Sendable, Equatable {
  /// The parsed length.
  public var duration: Duration

  /// The longest duration accepted: one day.
  public static let maximum = Duration.seconds(86_400)

  /// Parses `text`.
  ///
  /// - Throws: ``WorkloadDurationError`` naming `text` when it is not a duration.
  ///
  /// ```swift
  /// let short = try WorkloadDuration(parsing: "500ms")
  /// ```
  public init(parsing text: String) throws(WorkloadDurationError) {
    let units: [(suffix: String, seconds: Double)] = [
      ("ms", 0.001), ("s", 1), ("m", 60), ("h", 3_600),
    ]
    var number = Substring(text)
    var scale = 1.0
    // "ms" before "m" and "s": the first suffix that matches wins.
    for unit in units where text.hasSuffix(unit.suffix) {
      number = text.dropLast(unit.suffix.count)
      scale = unit.seconds
      break
    }
    let isDecimal = !number.isEmpty && number.allSatisfy { $0 == "." || $0.isASCII && $0.isNumber }
      && number.filter { $0 == "." }.count <= 1 && number != "."
    guard isDecimal, let value = Double(number) else {
      throw WorkloadDurationError(text: text, problem: "not a duration")
    }
    let seconds = value * scale
    guard seconds > 0 else {
      throw WorkloadDurationError(text: text, problem: "must be greater than zero")
    }
    guard seconds <= 86_400 else {
      throw WorkloadDurationError(text: text, problem: "must be at most 24h")
    }
    duration = .nanoseconds(Int64((seconds * 1e9).rounded()))
  }

  /// Wraps a known duration.
  ///
  /// ```swift
  /// let minute = WorkloadDuration(.seconds(60))
  /// ```
  public init(_ duration: Duration) {
    self.duration = duration
  }

  /// The duration in seconds.
  public var seconds: Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) + Double(attoseconds) / 1e18
  }
}

/// A `--duration` that could not be parsed; its description is one line naming the value.
///
/// ```swift
/// do {
///   _ = try WorkloadDuration(parsing: "soon")
/// } catch {
///   print(error)  // invalid duration 'soon': not a duration (use 500ms, 60s, 2m, 1h or seconds)
/// }
/// ```
public struct WorkloadDurationError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The text given.
  public var text: String
  /// What was wrong with it.
  public var problem: String

  /// `invalid duration 'TEXT': problem (use …)`.
  public var description: String {
    "invalid duration '\(text)': \(problem) (use 500ms, 60s, 2m, 1h or seconds)"
  }
}

/// How much worse a figure may get before `spool compare` calls it a regression.
///
/// A threshold of 10% flags a latency that grew by more than 10% (ratio new / base above 1.10)
/// and a throughput that fell by more than 10% (ratio below 0.90).
///
/// ```swift
/// let threshold = try RegressionThreshold(parsing: "10%")
/// threshold.fraction  // 0.1
/// ```
public struct RegressionThreshold: Sendable, Equatable, CustomStringConvertible {
  /// The allowed change as a fraction: 0.1 for 10%.
  public var fraction: Double

  /// Creates a threshold from a fraction (0.1 for 10%).
  ///
  /// ```swift
  /// let threshold = RegressionThreshold(fraction: 0.05)
  /// ```
  public init(fraction: Double) {
    self.fraction = fraction
  }

  /// Parses `10%`, `2.5%` or a bare percentage `10`.
  ///
  /// - Throws: ``RegressionThreshold/ParseError`` when the text is not a finite, non-negative
  ///   percentage below 1000%.
  ///
  /// ```swift
  /// let threshold = try RegressionThreshold(parsing: "5%")
  /// ```
  public init(parsing text: String) throws(ParseError) {
    var number = Substring(text)
    if number.hasSuffix("%") { number = number.dropLast() }
    guard let percent = Double(number), percent.isFinite, percent >= 0, percent < 1000 else {
      throw ParseError(text: text)
    }
    self.init(fraction: percent / 100)
  }

  /// `10%`.
  public var description: String {
    let percent = fraction * 100
    return percent == percent.rounded() ? "\(Int(percent))%" : "\(percent)%"
  }

  /// A threshold that is not a percentage.
  public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text given.
    public var text: String

    /// One line.
    public var description: String {
      "invalid threshold '\(text)': expected a percentage such as 10% (0 to 999)"
    }
  }
}

extension ReportEnvironment {
  /// How far two cross-core round trips, or two clock reads, may differ (the larger over the
  /// smaller) and still be the same machine: repeated measurements on one shared machine stay
  /// well within 25%, while machines of another kind differ by a factor.
  static let roundTripTolerance = 1.25

  /// What tells `other`'s machine from this one: the processor model, the online cores, the
  /// cores allowed, a cross-core round trip more than 25% apart, the instrumentation's time
  /// source, and a clock read more than 25% apart; empty when nothing does.
  ///
  /// A figure only one of the two reports has (older reports have no processor fields) is not
  /// a difference. Each entry reads `this vs other`: `cores 2 vs 4`.
  ///
  /// ```swift
  /// let differences = base.environment.machineDifferences(from: new.environment)
  /// // ["CPU 'AMD EPYC 7B13' vs 'Intel Xeon'", "cores 2 vs 4"]
  /// ```
  package func machineDifferences(from other: ReportEnvironment) -> [String] {
    var differences: [String] = []
    if let cpuModel, let otherModel = other.cpuModel, cpuModel != otherModel {
      differences.append("CPU '\(cpuModel)' vs '\(otherModel)'")
    }
    if cores != other.cores { differences.append("cores \(cores) vs \(other.cores)") }
    if let allowedCores, let otherAllowed = other.allowedCores, allowedCores != otherAllowed {
      differences.append("cores allowed \(allowedCores) vs \(otherAllowed)")
    }
    if let roundTrip = crossCoreRoundTripNanoseconds,
      let otherRoundTrip = other.crossCoreRoundTripNanoseconds,
      Self.differ(roundTrip, otherRoundTrip)
    {
      differences.append(
        "cross-core round trip \(DurationText.nanoseconds(roundTrip)) vs "
          + DurationText.nanoseconds(otherRoundTrip))
    }
    if let timeSource, let otherSource = other.timeSource, timeSource != otherSource {
      differences.append("clock \(timeSource) vs \(otherSource)")
    }
    if let read = clockReadNanoseconds, let otherRead = other.clockReadNanoseconds,
      Self.differ(read, otherRead)
    {
      differences.append(String(format: "clock read %.1fns vs %.1fns", read, otherRead))
    }
    return differences
  }

  private static func differ(_ a: Double, _ b: Double) -> Bool {
    let (low, high) = (Swift.min(a, b), Swift.max(a, b))
    // Only a damaged report has a figure of 0 or less; it matches only itself.
    guard low > 0 else { return a != b }
    return high > low * roundTripTolerance
  }
}

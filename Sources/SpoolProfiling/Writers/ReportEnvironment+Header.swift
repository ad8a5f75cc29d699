import Foundation

extension ReportEnvironment {
  /// The header of the terminal tables (`spool report`, `spool bench`'s summary): host, cores,
  /// kernel, toolchain, commit and date on the first line, then the processor, its cross-core
  /// round trip and the clock with what a read of it costs, when the report knows them (older
  /// reports do not: no second line).
  ///
  /// ```swift
  /// print(environment.headerLines().joined(separator: "\n"))
  /// // vm · 2 cores · Linux 6.8.0 · Swift 6.3.1 release · 0123456789ab · 2026-11-23T17:15:02Z
  /// // AMD EPYC 7B13 · cross-core round trip 182ns · clock: counter, 11.2ns per read
  /// ```
  package func headerLines() -> [String] {
    var cores = "\(self.cores) cores"
    if let allowedCores, allowedCores != self.cores { cores += " (\(allowedCores) allowed)" }
    var lines = [
      "\(hostName) · \(cores) · \(kernel) · Swift \(swiftVersion) \(buildConfiguration)"
        + (gitCommit.map { " · \($0.prefix(12))" } ?? "") + " · \(date.formatted(.iso8601))"
    ]
    var processor: [String] = []
    if let cpuModel { processor.append(cpuModel) }
    if let crossCoreRoundTripNanoseconds {
      processor.append(
        "cross-core round trip \(DurationText.nanoseconds(crossCoreRoundTripNanoseconds))")
    } else if let allowedCores, allowedCores < 2 {
      processor.append("cross-core round trip n/a (one core allowed)")
    }
    if let timeSource {
      processor.append(
        "clock: \(timeSource)"
          + (clockReadNanoseconds.map { String(format: ", %.1fns per read", $0) } ?? ""))
    }
    if !processor.isEmpty { lines.append(processor.joined(separator: " · ")) }
    return lines
  }
}

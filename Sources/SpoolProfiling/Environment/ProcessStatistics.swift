#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Figures about the running process that reports carry.
///
/// ```swift
/// let peak = ProcessStatistics.peakResidentBytes()
/// ```
public enum ProcessStatistics {
  /// The process's peak resident set size in bytes (`getrusage`'s `ru_maxrss`), or `nil`
  /// when the call fails.
  ///
  /// ```swift
  /// let workload = WorkloadReport(
  ///   name: "counter", actions: n, durationSeconds: elapsed,
  ///   peakRSSBytes: ProcessStatistics.peakResidentBytes()
  /// )
  /// ```
  public static func peakResidentBytes() -> Int? {
    var usage = rusage()
    guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return nil }
    // Linux reports kilobytes.
    return Int(usage.ru_maxrss) * 1024
  }
}

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif
import SpoolProfiling

/// The process's resident memory, with a peak that can be reset between measurements.
///
/// `getrusage`'s `ru_maxrss` only grows over the life of the process, so a workload run after
/// a memory-hungry baseline would report the baseline's peak. Linux resets the peak when `5`
/// is written to `/proc/self/clear_refs` (since 4.0) and reports it as `VmHWM` in
/// `/proc/self/status`; elsewhere the figures fall back to ``ProcessStatistics``.
package enum MemoryStatistics {
  /// Resets the peak resident set size to the current one, where the kernel allows it.
  package static func resetPeak() {
    let descriptor = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return }
    defer { close(descriptor) }
    var command: UInt8 = UInt8(ascii: "5")
    _ = write(descriptor, &command, 1)
  }

  /// The peak resident set size since the last ``resetPeak()``, in bytes.
  package static func peakResidentBytes() -> Int? {
    statusField("VmHWM:") ?? ProcessStatistics.peakResidentBytes()
  }

  /// The current resident set size, in bytes.
  package static func currentResidentBytes() -> Int? {
    statusField("VmRSS:")
  }

  /// A `kB` field of `/proc/self/status`, in bytes.
  private static func statusField(_ name: String) -> Int? {
    let descriptor = open("/proc/self/status", O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var bytes = [UInt8](repeating: 0, count: 8192)
    let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
    guard count > 0 else { return nil }
    let text = String(decoding: bytes[..<count], as: UTF8.self)
    for line in text.split(separator: "\n") where line.hasPrefix(name) {
      let digits = line.dropFirst(name.count).filter(\.isNumber)
      return Int(digits).map { $0 * 1024 }
    }
    return nil
  }
}

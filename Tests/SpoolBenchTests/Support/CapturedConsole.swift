import Synchronization

@testable import SpoolBench

/// A console whose standard output and error are kept for the test to read.
final class CapturedConsole: Sendable {
  // Appended to by the runner's writes, read by the test after the run: a mutex each.
  private let outputBytes = Mutex<[UInt8]>([])
  private let errorBytes = Mutex<[UInt8]>([])

  var console: BenchConsole {
    BenchConsole(
      output: { bytes in self.outputBytes.withLock { $0 += bytes } },
      error: { bytes in self.errorBytes.withLock { $0 += bytes } },
      showsProgress: false)
  }

  var output: String { String(decoding: outputBytes.withLock { $0 }, as: UTF8.self) }
  var error: String { String(decoding: errorBytes.withLock { $0 }, as: UTF8.self) }
  /// Standard error's lines.
  var errorLines: [Substring] { error.split(separator: "\n") }
}

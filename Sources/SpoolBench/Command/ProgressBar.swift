import Foundation

/// The progress bar of the bench command: one line on standard error, redrawn ten times a
/// second, erased at the end. ``BenchConsole/showsProgress`` decides whether it is drawn (only
/// when standard error is a terminal, so that logs and pipes get no control characters).
final class ProgressBar: Sendable {
  private let task: Task<Void, Never>

  private init(_ progress: BenchProgress) {
    task = Task.detached(priority: .low) {
      while !Task.isCancelled {
        ProgressBar.draw(progress.snapshot)
        try? await Task.sleep(for: .milliseconds(100))
      }
    }
  }

  /// A running bar.
  static func start(_ progress: BenchProgress) -> ProgressBar {
    ProgressBar(progress)
  }

  /// Stops drawing and erases the line.
  func stop() async {
    task.cancel()
    await task.value
    FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8))
  }

  private static func draw(_ snapshot: BenchProgress.Snapshot) {
    let width = 30
    let filled = Int(snapshot.fraction * Double(width))
    let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
    let percent = Int(snapshot.fraction * 100)
    let line = "\r\u{1B}[2K[\(bar)] \(percent)% \(snapshot.label)"
    FileHandle.standardError.write(Data(line.utf8))
  }
}

#if canImport(Glibc)
  import Glibc
#endif
import Foundation
import SpoolIO
import Testing

/// This test binary run again as a child that records a journal into `folder` with durable
/// acknowledgements (`killChildRecordsUntilKilled`, or the test `filter` names), for a test
/// that kills it with SIGKILL.
struct KillChild {
  static let variable = "SPOOL_JOURNAL_KILL_CHILD"
  /// The variable of the shared journal's child (`sharedKillChildRecordsUntilKilled`).
  static let sharedVariable = "SPOOL_SHARED_JOURNAL_KILL_CHILD"
  /// The variable of the shared journal's compacting child (`compactingChildRecordsUntilKilled`).
  static let compactingVariable = "SPOOL_SHARED_JOURNAL_COMPACTING_CHILD"
  /// The variable of the shared journal's child that seals a segment and waits
  /// (`sealedSegmentChildWaitsToBeKilled`).
  static let sealedVariable = "SPOOL_SHARED_JOURNAL_SEALED_CHILD"

  let process: Process
  let folder: String

  /// Starts the child; with `backend`, its shared engine runs on that backend
  /// (`SPOOL_IO_BACKEND`), else on this process's choice.
  init(
    folder: String, variable: String = Self.variable,
    filter: String = "killChildRecordsUntilKilled", backend: IOBackend.Preference? = nil
  ) throws {
    self.folder = folder
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/proc/self/exe")
    process.arguments = ["--testing-library", "swift-testing", "--filter", filter]
    var environment = ProcessInfo.processInfo.environment
    environment[variable] = folder
    switch backend {
    case .threads?: environment["SPOOL_IO_BACKEND"] = "threads"
    case .ioUring?, .automatic?: environment["SPOOL_IO_BACKEND"] = nil
    case nil: break
    }
    process.environment = environment
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    self.process = process
  }

  /// Waits until the acks file holds `count` lines; `false` after 60 s or if the child exited.
  func waitForAcknowledgements(atLeast count: Int) async throws -> Bool {
    try await waitForLines(in: "acks", atLeast: count)
  }

  /// Waits until the file `name` in the folder holds `count` lines; `false` after 60 s or if
  /// the child exited.
  func waitForLines(in name: String, atLeast count: Int) async throws -> Bool {
    for _ in 0..<6_000 {
      if TemporaryDirectory.lines(of: "\(folder)/\(name)").count >= count { return true }
      if !process.isRunning { return false }
      try await Task.sleep(for: .milliseconds(10))
    }
    return false
  }

  /// SIGKILL, then reaps it.
  func kill() {
    _ = Glibc.kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
    waitForLocksReleased()
  }

  /// Waits (at most 10 s) until no process holds a journal lock (`*.lock`) in the folder.
  ///
  /// Once in a clean-clone CI run, a journal opened right after the child was reaped found
  /// its lock still held ("in use: another JournalRecorder ..."): the kernel released it a
  /// moment after the exit that `waitUntilExit` saw. The tests are about what the child left
  /// on disk, not about that moment, so they start once the locks are free; a lock still held
  /// after 10 s fails the test that opens the journal, as before. It blocks its thread only
  /// while a lock is held, as `waitUntilExit` does while the child runs.
  private func waitForLocksReleased() {
    let locks = TemporaryDirectory.entries(of: folder).filter { $0.hasSuffix(".lock") }
    for name in locks {
      let fd = open("\(folder)/\(name)", O_RDWR | O_CLOEXEC)
      guard fd >= 0 else { continue }
      defer { close(fd) }
      for _ in 0..<1_000 {
        if flock(fd, LOCK_EX | LOCK_NB) == 0 {
          flock(fd, LOCK_UN)
          break
        }
        usleep(10_000)
      }
    }
  }
}

extension TemporaryDirectory {
  /// The lines of the file `name` in the directory.
  func linesOf(_ name: String) -> [String] { Self.lines(of: file(name)) }

  /// The whole lines of the file at `path` (a last line without its newline is left out: it
  /// was being written).
  static func lines(of path: String) -> [String] {
    let text = String(decoding: fileBytes(path), as: UTF8.self)
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    lines.removeLast()
    return lines
  }
}

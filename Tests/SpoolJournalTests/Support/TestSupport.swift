#if canImport(Glibc)
  import Glibc
#endif
import SpoolCore
@testable import SpoolIO
@testable import SpoolJournal
import Testing

/// Both backends, so every parameterized test runs against each in one process.
let allBackends: [IOBackend.Preference] = [.ioUring, .threads]

/// Runs `body` with a fresh engine and shuts it down afterwards, whatever happens.
///
/// Then expects that the engine closed every file and socket it opened (its own count, which
/// other tests running at the same time cannot disturb, unlike `/proc/self/fd`) and, once shut
/// down, its ring and eventfds.
func withEngine<Result>(
  _ backend: IOBackend.Preference,
  ringEntries: UInt32 = 64,
  faultInjector: (@Sendable (String) -> Int32?)? = nil,
  faults: IOFault.Injector? = nil,
  sourceLocation: SourceLocation = #_sourceLocation,
  _ body: (IOEngine) async throws -> Result
) async throws -> Result {
  let engine =
    if let faults {
      try IOEngine(backend: backend, ringEntries: ringEntries, faults: faults)
    } else {
      try IOEngine(backend: backend, ringEntries: ringEntries, faultInjector: faultInjector)
    }
  let result: Result
  do {
    result = try await body(engine)
  } catch {
    await engine.shutdown()
    throw error
  }
  #expect(
    engine.openResourceDescriptors == 0, "files or sockets left open by the test",
    sourceLocation: sourceLocation)
  await engine.shutdown()
  #expect(
    engine.openBackendDescriptors == 0, "descriptors of the engine left open by its shutdown",
    sourceLocation: sourceLocation)
  return result
}

/// The number of open descriptors of this process (entries of /proc/self/fd).
///
/// Only descriptors that no other suite opens are counted: files under these tests' temporary
/// directories. Other test suites run in the same process at the same time and open
/// descriptors of their own (report files, pipes of a child process, the timerfd of Dispatch
/// behind `Task.sleep`, the sockets of the workloads' echo test, and the rings and eventfds of
/// their engines), which would make a count of anything else flaky. Sockets, rings and
/// eventfds are counted by each engine instead, which `withEngine` checks
/// (`IOEngine.openResourceDescriptors`, `IOEngine.openBackendDescriptors`).
func openDescriptorCount() -> Int {
  guard let directory = opendir("/proc/self/fd") else { return -1 }
  defer { closedir(directory) }
  var count = 0
  for name in FileOperations.entryNames(in: directory) {
    guard name != ".", name != ".." else { continue }
    var target = [CChar](repeating: 0, count: 4096)
    let length = readlink("/proc/self/fd/\(name)", &target, target.count - 1)
    guard length > 0 else { continue }
    let path = String(decoding: target[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    if path.hasPrefix("/tmp/spool-journal-test-") { count += 1 }
  }
  return count
}

/// Runs `body` and expects the process to hold as many descriptors afterwards as before.
///
/// Other suites of the same test process run at the same time and use SpoolIO too (the
/// workloads' tests, on `IOEngine.shared`). So the shared engine is created before the first
/// count (its ring and eventfd live as long as the process), and a count that differs is taken
/// again for up to two seconds: another suite's sockets come and go, a leak stays.
func expectNoDescriptorLeak(
  sourceLocation: SourceLocation = #_sourceLocation,
  _ body: () async throws -> Void
) async throws {
  _ = IOEngine.shared.backend
  let before = openDescriptorCount()
  try await body()
  var after = openDescriptorCount()
  var attempts = 0
  while after != before, attempts < 200 {
    try await Task.sleep(for: .milliseconds(10))
    after = openDescriptorCount()
    attempts += 1
  }
  #expect(after == before, sourceLocation: sourceLocation)
}

/// A fresh directory under /tmp, removed (with the files directly in it) by `remove()`.
struct TemporaryDirectory {
  let path: String

  init() {
    var template = Array("/tmp/spool-journal-test-XXXXXX".utf8CString)
    let created = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    precondition(created != nil, "mkdtemp failed")
    path = String(cString: template.withUnsafeBufferPointer { $0.baseAddress! })
  }

  func file(_ name: String) -> String { "\(path)/\(name)" }

  func entries() -> [String] { Self.entries(of: path) }

  /// The names in the folder at `path`, sorted, without `.` and `..`.
  static func entries(of path: String) -> [String] {
    guard let directory = opendir(path) else { return [] }
    defer { closedir(directory) }
    return FileOperations.entryNames(in: directory).filter { $0 != "." && $0 != ".." }.sorted()
  }

  func remove() {
    for name in entries() { unlink(file(name)) }
    rmdir(path)
  }
}

/// Expects `body` to throw an `IOError` with `errno`; returns it for further checks.
@discardableResult
func expectIOError(
  _ errno: Int32,
  sourceLocation: SourceLocation = #_sourceLocation,
  _ body: () async throws -> Void
) async -> IOError? {
  do {
    try await body()
    Issue.record("expected an IOError \(errno), got success", sourceLocation: sourceLocation)
  } catch let error as IOError {
    #expect(error.errno == errno, "\(error)", sourceLocation: sourceLocation)
    return error
  } catch {
    Issue.record("expected an IOError \(errno), got \(error)", sourceLocation: sourceLocation)
  }
  return nil
}

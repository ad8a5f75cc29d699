import Foundation
import Testing

@testable import SpoolProfiling

/// Where `spool bench` writes: timestamped names that never replace a file, or the reference
/// names that do.
@Suite struct ReportFolderTests {
  /// `Fixtures.environment.date`, 2025-06-15T15:06:40Z.
  static let stem = "counter-20250615T150640Z"

  private func contents(_ path: String) throws -> String {
    try String(contentsOfFile: path, encoding: .utf8)
  }

  private func files(in directory: TemporaryDirectory, _ folder: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: directory.file(folder)).sorted()
  }

  @Test func theTimestampIsISO8601BasicInUTC() {
    #expect(ReportFolder.timestamp(Fixtures.environment.date) == "20250615T150640Z")
    #expect(ReportFolder.timestamp(Date(timeIntervalSince1970: 0.9)) == "19700101T000000Z")
  }

  @Test func twoWritesInTheSameSecondMakeTwoFiles() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    // A folder that does not exist yet, two levels deep: it is created.
    let folder = ReportFolder(path: directory.file("runs/today"), naming: .timestamped)
    let first = try folder.write(Fixtures.report())
    let second = try folder.write(Fixtures.report())
    #expect(first == [directory.file("runs/today/\(Self.stem).json")])
    #expect(second == [directory.file("runs/today/\(Self.stem)-2.json")])
    let expected = String(decoding: Fixtures.report().rendered(as: .json), as: UTF8.self)
    #expect(try contents(first[0]) == expected)
    #expect(try contents(second[0]) == expected)
    // Nothing else: no temporary file, no write check left behind.
    #expect(try files(in: directory, "runs/today") == ["\(Self.stem)-2.json", "\(Self.stem).json"])
  }

  @Test func anExistingFileIsNeverReplaced() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let kept = try directory.write("kept", to: "\(Self.stem).json")
    let alsoKept = try directory.write("also kept", to: "\(Self.stem)-2.json")
    let paths = try ReportFolder(path: directory.path, naming: .timestamped)
      .write(Fixtures.report())
    #expect(paths == [directory.file("\(Self.stem)-3.json")])
    #expect(try contents(kept) == "kept")
    #expect(try contents(alsoKept) == "also kept")
    #expect(try Report.load(from: paths[0]) == Fixtures.report())
  }

  @Test func concurrentWritersNeverShareAFile() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let folder = ReportFolder(path: directory.path, naming: .timestamped)
    let report = Fixtures.report()
    // Eight writers of the same workload in the same second, racing for the same names.
    DispatchQueue.concurrentPerform(iterations: 8) { _ in
      _ = try? folder.write(report)
    }
    let names = try files(in: directory, ".")
    #expect(
      names == (["\(Self.stem).json"] + (2...8).map { "\(Self.stem)-\($0).json" }).sorted())
    for name in names {
      #expect(try Report.load(from: directory.file(name)) == report)
    }
  }

  @Test func oneFilePerWorkload() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let report = Fixtures.report([Fixtures.workload(), Fixtures.workload(name: "echo")])
    let paths = try ReportFolder(path: directory.path + "/", naming: .timestamped).write(report)
    #expect(
      paths == [
        directory.file("\(Self.stem).json"), directory.file("echo-20250615T150640Z.json"),
      ])
    let echo = try Report.load(from: paths[1])
    #expect(echo.workloads.map(\.name) == ["echo"])
    #expect(echo.environment == report.environment)
  }

  @Test func referenceNamesAreStableAndReplaced() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let folder = ReportFolder(path: directory.path, naming: .reference)
    _ = try folder.write(Fixtures.report())
    let faster = Fixtures.report([Fixtures.workload(throughput: 2_000_000)])
    let paths = try folder.write(faster)
    #expect(paths == [directory.file("counter.json")])
    #expect(try Report.load(from: paths[0]) == faster)
    #expect(try files(in: directory, ".") == ["counter.json"])
  }

  @Test func anUnusableFolderIsOneLineNamingIt() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let file = try directory.write("not a folder", to: "file")
    for (path, problem) in [
      (file, "stat failed: Not a directory"),
      (file + "/reports", "mkdir failed: Not a directory"),
    ] {
      #expect {
        _ = try ReportFolder(path: path, naming: .timestamped).write(Fixtures.report())
      } throws: { error in
        let text = "\(error)"
        guard let error = error as? ReportFileError, error.code == .system,
          error.systemError?.errno == ENOTDIR
        else { return false }
        return text.hasPrefix("\(path): \(problem)") && !text.contains("\n")
      }
    }
    #expect(try contents(file) == "not a folder")
    #expect(try files(in: directory, ".") == ["file"])
  }
}

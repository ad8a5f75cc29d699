import Foundation
import Testing

@testable import SpoolProfiling

/// `Report.load(from:)` on bad input: one-line errors that name the file and the problem.
@Suite struct ReportLoadingTests {
  private func loadError(_ path: String) -> ReportFileError? {
    do {
      _ = try Report.load(from: path)
      return nil
    } catch {
      return error
    }
  }

  private func expectError(
    _ path: String, _ code: ReportFileError.Code, _ problem: String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let error = loadError(path)
    #expect(error?.code == code, sourceLocation: sourceLocation)
    #expect(error?.systemError == nil, sourceLocation: sourceLocation)
    let text = error.map { "\($0)" } ?? "no error"
    #expect(text.hasPrefix("\(path): "), sourceLocation: sourceLocation)
    #expect(text.contains(problem), "\(text)", sourceLocation: sourceLocation)
    #expect(!text.contains("\n"), sourceLocation: sourceLocation)
  }

  @Test func aMissingFile() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    expectError(directory.file("absent.json"), .notFound, "no such file")
  }

  @Test func anEmptyFile() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    expectError(try directory.write("", to: "empty.json"), .empty, "is empty")
    expectError(try directory.write("  \n", to: "blank.json"), .empty, "is empty")
  }

  @Test func truncatedJSON() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let json = String(decoding: Fixtures.report().rendered(as: .json), as: UTF8.self)
    let path = try directory.write(String(json.prefix(json.count / 2)), to: "cut.json")
    expectError(path, .malformedJSON, "truncated or malformed JSON")
  }

  @Test func anotherSchemaVersion() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = try directory.write(#"{"schemaVersion": 99, "workloads": []}"#, to: "v99.json")
    expectError(path, .unsupportedSchemaVersion, "has schema version 99; this spool reads version 1")
  }

  @Test func jsonThatIsNotAReport() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    expectError(try directory.write(#"{"name": 1}"#, to: "other.json"), .notAReport, "no schemaVersion")
    expectError(
      try directory.write(#"{"schemaVersion": 1, "workloads": []}"#, to: "partial.json"), .notAReport,
      "missing field 'environment'")
    expectError(
      try directory.write("[1, 2]", to: "array.json"), .notJSON,
      "is not a Spool report (it starts with byte 0x5b, not '{')")
  }

  @Test func aDirectory() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    expectError(directory.path, .isDirectory, "is a directory")
  }

  @Test func aFIFODoesNotBlock() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("pipe.json")
    #expect(mkfifo(path, 0o600) == 0)
    expectError(path, .notRegularFile, "is not a regular file")
  }

  @Test func aHundredMegabytesOfGarbage() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("garbage.json")
    // Garbage bytes, then a sparse extension to 100 MB: cheap to make, 100 MB to a reader.
    var generator = SystemRandomNumberGenerator()
    let garbage = (0..<65_536).map { _ in UInt8.random(in: 0x80...0xFF, using: &generator) }
    try Data(garbage).write(to: URL(fileURLWithPath: path))
    #expect(truncate(path, 100 << 20) == 0)
    expectError(path, .notJSON, "is not a Spool report (it starts with byte 0x")
  }

  @Test func aHundredMegabyteFileThatStartsLikeJSON() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = try directory.write(#"{"schemaVersion": 1, "#, to: "huge.json")
    #expect(truncate(path, 100 << 20) == 0)
    expectError(path, .tooLarge, "is too large for a report (104857600 bytes")
  }

  /// Files of /proc report a size of 0 and have contents: named for what they are.
  @Test func aProcFileIsNotCalledEmpty() {
    expectError(
      "/proc/self/status", .notJSON, "is not a Spool report (it starts with byte 0x4e, not '{')")
  }

  @Test func aSchemaVersionOfTheWrongType() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    expectError(
      try directory.write(#"{"schemaVersion": "1", "workloads": []}"#, to: "string.json"), .notAReport,
      #"is not a Spool report (schemaVersion is a string ("1"), not an integer)"#)
    expectError(
      try directory.write(#"{"schemaVersion": 1.5}"#, to: "fraction.json"), .notAReport,
      "is not a Spool report (schemaVersion is 1.5, not an integer)")
    expectError(
      try directory.write(#"{"schemaVersion": null}"#, to: "null.json"), .notAReport,
      "is not a Spool report (schemaVersion is null, not an integer)")
  }

  /// A number too large for its field names the field, rather than calling the JSON invalid.
  @Test func anIntegerOutOfRangeNamesItsField() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let json = String(decoding: Fixtures.report().rendered(as: .json), as: UTF8.self)
      .replacingOccurrences(
        of: #""actions" : 1000000"#, with: #""actions" : 99999999999999999999"#)
    #expect(json.contains("99999999999999999999"))
    let path = try directory.write(json, to: "huge-count.json")
    expectError(path, .impossibleValue, "workloads[0].actions")
    #expect(loadError(path).map { "\($0)" }?.contains("JSON") == false)
  }

  @Test func aNegativeCountNamesItsField() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    var report = Fixtures.report()
    report.workloads[0].actions = -5
    let path = directory.file("negative.json")
    try report.write(to: path, format: .json)
    expectError(
      path, .impossibleValue,
      "has an impossible value: workloads[0].actions is -5; a count or size cannot be negative")
  }

  @Test func aNegativeClockReadNamesItsField() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    var report = Fixtures.report()
    report.environment.clockReadNanoseconds = -1
    let path = directory.file("negative-clock.json")
    try report.write(to: path, format: .json)
    expectError(path, .impossibleValue, "environment.clockReadNanoseconds is -1")
  }

  @Test func aReportFileReadsBack() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("good.json")
    try Fixtures.report().write(to: path, format: .json)
    #expect(try Report.load(from: path) == Fixtures.report())
  }
}

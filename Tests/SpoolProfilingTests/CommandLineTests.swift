import Foundation
import Testing

/// Runs the built `spool` executable next to the test bundle, when it has been built
/// (`swift build` builds it; `swift build --build-tests` does too).
@Suite struct CommandLineTests {
  static let spool: String = {
    let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    return bundle.appendingPathComponent("spool").path
  }()

  /// Runs `spool` with `arguments` on a thread of its own: waiting for the child on one of
  /// Swift's pool threads (two on a 2-core machine) would stall every other test meanwhile.
  private func run(
    _ arguments: [String]
  ) async throws -> (status: Int32, output: String, error: String) {
    try await withCheckedThrowingContinuation { continuation in
      Thread { continuation.resume(with: Result { try Self.runBlocking(arguments) }) }.start()
    }
  }

  private static func runBlocking(
    _ arguments: [String]
  ) throws -> (status: Int32, output: String, error: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Self.spool)
    process.arguments = arguments
    let output = Pipe()
    let error = Pipe()
    process.standardOutput = output
    process.standardError = error
    try process.run()
    let outputData = output.fileHandleForReading.readDataToEndOfFile()
    let errorData = error.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (
      process.terminationStatus, String(decoding: outputData, as: UTF8.self),
      String(decoding: errorData, as: UTF8.self)
    )
  }

  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: spool)))
  func reportAndCompareExitCodes() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let base = directory.file("base.json")
    try Fixtures.report().write(to: base, format: .json)
    let slow = directory.file("slow.json")
    try Fixtures.report([Fixtures.workload(throughput: 500_000)]).write(to: slow, format: .json)

    let table = try await run(["report", base])
    #expect(table.status == 0)
    #expect(table.output.contains("incrementButtonTapped"))

    let missing = try await run(["report", directory.file("missing.json")])
    #expect(missing.status == 1)
    #expect(missing.error == "error: \(directory.file("missing.json")): no such file\n")

    #expect(try await run(["compare", base, base]).status == 0)
    let regressed = try await run(["compare", base, slow, "--threshold", "10%"])
    #expect(regressed.status == 1)
    #expect(regressed.output.contains("REGRESSION"))
    #expect(try await run(["compare", base, directory.path]).status == 2)
  }

  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: spool)))
  func aBadDurationIsOneLineNamingIt() async throws {
    // `--duration=VALUE`: a value that starts with `-` would otherwise be read as an option.
    for value in ["5x", "0s", "-1m", "soon", "1.5.2s"] {
      let result = try await run(["bench", "soak", "--duration=\(value)"])
      #expect(result.status == 64)
      #expect(result.error.hasPrefix("error: invalid duration '\(value)': "))
      #expect(result.error.filter { $0 == "\n" }.count == 1)
    }
    let elsewhere = try await run(["bench", "counter", "--duration", "5s"])
    #expect(elsewhere.status == 64)
    #expect(elsewhere.error.contains("--duration applies to idle-stores, soak only"))
  }

  /// A bad option of `report` or `compare` is one line and exit status 64.
  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: spool)))
  func aBadThresholdOrFormatIsOneLine() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let base = directory.file("base.json")
    try Fixtures.report().write(to: base, format: .json)
    for value in ["ten", "-5%", "1e999", "nan", "2000%"] {
      let result = try await run(["compare", base, base, "--threshold=\(value)"])
      #expect(result.status == 64, "\(value)")
      #expect(result.error.hasPrefix("error: invalid threshold '\(value)': "), "\(value)")
      #expect(result.error.filter { $0 == "\n" }.count == 1, "\(result.error)")
      #expect(result.output.isEmpty)
    }
    let format = try await run(["report", base, "--format", "pdf"])
    #expect(format.status == 64)
    #expect(format.error == "error: unknown format 'pdf'; use one of: table, json, trace, svg\n")
  }

  /// A report with an impossible figure is not printed or compared as if measured.
  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: spool)))
  func anImpossibleReportIsRefusedByReportAndCompare() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let base = directory.file("base.json")
    try Fixtures.report().write(to: base, format: .json)
    let json = String(decoding: Fixtures.report().rendered(as: .json), as: UTF8.self)
    let broken = try directory.write(
      json.replacingOccurrences(of: #""durationSeconds" : 1"#, with: #""durationSeconds" : -1"#),
      to: "negative.json")
    let report = try await run(["report", broken])
    #expect(report.status == 1)
    #expect(report.output.isEmpty)
    #expect(
      report.error == "error: \(broken): has an impossible value: workloads[0].durationSeconds"
        + " is -1.0; a duration or rate cannot be negative\n")
    let compare = try await run(["compare", base, broken])
    #expect(compare.status == 2)
    #expect(compare.error.contains("workloads[0].durationSeconds is -1.0"))
  }

  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: spool)))
  func zeroRoundsIsRefused() async throws {
    let result = try await run(["bench", "counter", "--rounds", "0"])
    #expect(result.status == 64)
    #expect(result.error.contains("--rounds must be at least 1"))
  }

  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: spool)))
  func reportPrintsASoaksTimeline() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("soak.json")
    try TimelineTests.soakReport().write(to: path, format: .json)
    let table = try await run(["report", path])
    #expect(table.status == 0)
    #expect(table.output.contains("timeline: 12 samples every 1.00s · flat"))
    #expect(try await run(["compare", path, path]).status == 0)
  }

  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: spool)))
  func listAlignsTheSummariesPastTheLongestName() async throws {
    let result = try await run(["bench", "--list"])
    #expect(result.status == 0)
    let lines = result.output.split(separator: "\n")
    let width = lines.map { $0.prefix { $0 != " " }.count }.max() ?? 0
    #expect(width == "instrumentation".count)
    for line in lines {
      // Every summary starts in the same column, at least two spaces after its name.
      let name = line.prefix { $0 != " " }
      #expect(line.dropFirst(name.count).prefix(width + 2 - name.count).allSatisfy { $0 == " " })
      #expect(line.dropFirst(width + 2).first != " ", "\(line)")
    }
  }

  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: spool)))
  func referenceAndOutputTogetherAreRefused() async throws {
    let result = try await run(["bench", "counter", "--reference", "--output", "elsewhere"])
    #expect(result.status == 64)
    #expect(
      result.error.contains(
        "--reference writes Profiles/<workload>.json and cannot be combined with --output"))
  }

  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: spool)))
  func anUnusableOutputFolderFailsBeforeAnyRun() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let file = try directory.write("", to: "file")
    let result = try await run(["bench", "counter", "--output", file + "/reports"])
    #expect(result.status == 1)
    #expect(result.error == "error: \(file)/reports: mkdir failed: Not a directory (errno 20)\n")
    #expect(result.output.isEmpty)
  }

  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: spool)))
  func compareWarnsAboutDifferentMachines() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let base = directory.file("base.json")
    try Fixtures.report().write(to: base, format: .json)
    var other = Fixtures.report()
    other.environment.cpuModel = "Other CPU"
    let new = directory.file("new.json")
    try other.write(to: new, format: .json)
    let result = try await run(["compare", base, new])
    #expect(result.status == 0)
    #expect(
      result.output.hasPrefix(
        "warning: the reports come from different machines: CPU 'Test CPU @ 3.00GHz' vs "
          + "'Other CPU'; their ratios are not comparable\n"))
    #expect(!(try await run(["compare", base, base])).output.contains("warning"))
  }
}

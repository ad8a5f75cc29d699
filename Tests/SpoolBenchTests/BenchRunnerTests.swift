import Foundation
import SpoolProfiling
import Testing

@testable import SpoolBench

/// The command every `SpoolBenchmarkCommand` runs: reports named and written as `spool bench`
/// writes them, and bad input ending with one line on standard error, a non-zero status and no
/// file written.
@Suite struct BenchRunnerTests {
  static let workloads = [
    Workload(
      "tally", summary: "adds values", defaultActions: 1_000,
      initialState: Tally.State(), reducer: { Tally() },
      driver: .enqueue { .add($0) }, check: Tally.check),
    Workload(
      "lossy", summary: "loses an action", defaultActions: 1_000,
      initialState: Tally.State(), reducer: { Tally() },
      driver: .custom { store, context in
        for index in 1..<context.actions { store.enqueue(.add(index)) }
        return context.actions
      }, check: Tally.check),
  ]

  func run(
    _ arguments: [String], workloads: [Workload] = Self.workloads
  ) async -> (status: Int32, console: CapturedConsole) {
    let console = CapturedConsole()
    let runner = BenchRunner(
      workloads: workloads, commandName: "TallyBenchmarks", console: console.console)
    return (await runner.run(arguments: arguments), console)
  }

  @Test func writesATimestampedReportThatLoadsBack() async throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let (status, console) = await run([
      "tally", "--actions", "500", "--rounds", "1", "--output", "\(folder.path)/reports",
    ])
    #expect(status == 0, "\(console.error)")
    let files = folder.files(in: "reports")
    try #require(files.count == 1)
    #expect(files[0].wholeMatch(of: /tally-\d{8}T\d{6}Z\.json/) != nil, "\(files)")
    let report = try Report.load(from: "\(folder.path)/reports/\(files[0])")
    #expect(report.workloads.map(\.name) == ["tally"])
    #expect(report.workloads.first?.actions == 500)
    #expect(console.output.contains("tally: 500 in "))
    #expect(console.output.contains("reports: \(folder.path)/reports/\(files[0])"))
  }

  @Test func listsTheWorkloads() async {
    let (status, console) = await run(["--list"])
    #expect(status == 0)
    #expect(
      console.output == "tally  adds values (default 1000)\nlossy  loses an action (default 1000)\n")
  }

  /// ArgumentParser's own errors (a value that is not a number) keep its usage text and
  /// status; `--help` is not an error.
  @Test func parseErrorsAndHelp() async {
    let (status, console) = await run(["--rounds", "three"])
    #expect(status == 64)
    #expect(console.error.contains("The value 'three' is invalid for '--rounds <rounds>'"))
    let (helpStatus, help) = await run(["--help"])
    #expect(helpStatus == 0)
    #expect(help.output.contains("--rounds <rounds>"))
    #expect(help.error.isEmpty)
  }

  @Test func anUnknownWorkloadIsOneLine() async throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let (status, console) = await run(["tally", "nope", "--output", "\(folder.path)/out"])
    #expect(status == 64)
    #expect(console.errorLines == ["error: unknown workload 'nope'; known: tally, lossy"])
    #expect(folder.files().isEmpty, "nothing written, not even the folder")
  }

  @Test(arguments: [("0", "--rounds must be at least 1 (got 0)"), ("-2", "--rounds must be at least 1 (got -2)")])
  func roundsBelowOneIsOneLine(value: String, message: String) async throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let (status, console) = await run(["--rounds=\(value)", "--output", "\(folder.path)/out"])
    #expect(status == 64)
    #expect(console.errorLines == ["error: \(message)"])
    #expect(folder.files().isEmpty)
  }

  @Test func durationIsRefusedWithoutAWorkloadThatTakesIt() async {
    let (status, console) = await run(["tally", "--duration", "5s"])
    #expect(status == 64)
    #expect(console.errorLines == ["error: --duration applies to no workload of TallyBenchmarks"])
  }

  /// A folder that cannot be made (its parent is a file): one line naming it, status 1, and
  /// no workload runs.
  @Test func anUnwritableOutputFolderIsOneLine() async throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let blocker = "\(folder.path)/file"
    try Data("not a folder".utf8).write(to: URL(fileURLWithPath: blocker))
    let (status, console) = await run(["tally", "--output", "\(blocker)/reports"])
    #expect(status == 1)
    #expect(console.errorLines.count == 1)
    #expect(console.error.hasPrefix("error: \(blocker)/reports"), "\(console.error)")
    #expect(console.output.isEmpty, "no workload ran")
    #expect(folder.files() == ["file"])
    #expect(try String(contentsOfFile: blocker, encoding: .utf8) == "not a folder")
  }

  /// A workload that loses an action: status 1, one line naming the measurement, no report.
  @Test func aFailedCheckWritesNoReport() async throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let (status, console) = await run([
      "tally", "lossy", "--actions", "100", "--rounds", "1", "--output", folder.path,
    ])
    #expect(status == 1)
    #expect(
      console.errorLines == [
        "error: lossy · spool: counted 99 (sum 4950), expected 100"
      ])
    #expect(folder.files().isEmpty)
  }

  @Test func workloadsWithTheSameNameAreRefused() async {
    let twice = [Self.workloads[0], Self.workloads[0]]
    let (status, console) = await run(["--list"], workloads: twice)
    #expect(status == 1)
    #expect(console.errorLines == ["error: two workloads are named 'tally'; names must be unique"])
  }

  /// The summary's column of baseline names is as wide as the longest name: none is cut, and
  /// the figures of every baseline line up.
  @Test func theSummaryNeverCutsABaselinesName() async throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let long = "locked-class+task-local+more"
    let loop: @Sendable (WorkloadContext) throws -> Void = { context in
      var state = Tally.State()
      for index in 0..<context.actions { _ = Tally().reduce(into: &state, action: .add(index)) }
      try Tally.check(state, context.actions)
    }
    let workload = Workload(
      "tally", summary: "adds values", defaultActions: 100,
      initialState: Tally.State(), reducer: { Tally() },
      driver: .enqueue { .add($0) }, check: Tally.check,
      baselines: [WorkloadBaseline("raw-loop", loop), WorkloadBaseline(long, loop)])
    let (status, console) = await run(
      ["--rounds", "1", "--output", folder.path], workloads: [workload])
    #expect(status == 0, "\(console.error)")
    let lines = console.output.split(separator: "\n").filter { $0.contains("spool/baseline") }
    try #require(lines.count == 2, "\(console.output)")
    #expect(lines[1].hasPrefix("  \(long) "))
    let columns = lines.map { $0.firstRange(of: "spool/baseline")?.lowerBound.utf16Offset(in: $0) }
    #expect(columns[0] == columns[1], "\(lines)")
  }
}

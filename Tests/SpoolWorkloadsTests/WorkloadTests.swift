import SpoolBench
import SpoolIO
import SpoolProfiling
import Synchronization
import Testing

@testable import SpoolWorkloads

/// Every workload runs at a small volume, checks its own counts (a lost action throws), and
/// reports the figures and baselines the JSON interface promises.
@Suite(.serialized)
struct WorkloadTests {
  static let expectedBaselines: [String: Set<String>] = [
    "counter": [
      "raw-loop", "plain-actor", "locked-class", "locked-class+task-local", "task-per-action",
    ],
    "counter-send": [
      "raw-loop", "plain-actor", "locked-class", "locked-class+task-local", "task-per-action",
    ],
    "fan-in": ["plain-actor", "locked-class", "spool-1-producer"],
    "effects": ["task-per-action"],
    "cancellation": ["plain-actor", "plain-actor+dependency"],
    "search": ["blocking-io"],
    "file-io": ["blocking-io", "spoolio-direct"],
    "echo": ["spoolio-direct"],
    "todos": ["raw-loop", "plain-actor", "locked-class", "spool-1000-rows"],
    "instrumentation-counter": ["spool-instrumented", "spool-sampled", "spool-clock-only"],
    "instrumentation-work": ["raw-loop", "spool-instrumented", "spool-sampled"],
  ]

  /// The baselines of report `name`: on io_uring, the I/O workloads also measure the store on
  /// the engine's thread.
  static func baselines(of name: String) -> Set<String>? {
    guard var names = name == "file-io-cold" ? ["blocking-io"] : expectedBaselines[name] else {
      return nil
    }
    if ["file-io", "file-io-cold", "echo"].contains(name) && IOEngine.shared.backend == .ioUring {
      names.insert("store-on-io-thread")
    }
    return names
  }

  /// The reports each workload writes, when not just one named after it.
  static let expectedReports: [String: [String]] = [
    "instrumentation": ["instrumentation-counter", "instrumentation-work"]
  ]

  @Test(arguments: Workload.standard.map(\.name))
  func runsAndReports(name: String) async throws {
    let workload = try #require(Workload.named(name))
    let reports = try await workload.run(
      WorkloadOptions(actions: 256, producers: 4, profile: true), progress: BenchProgress())
    #expect(reports.map(\.name) == Self.expectedReports[name, default: [name]])
    for report in reports {
      #expect(report.actions > 0)
      #expect(report.durationSeconds > 0)
      #expect(report.throughputPerSecond > 0)
      #expect(report.peakRSSBytes != nil)
      #expect(Set(report.baselines.map(\.name)) == Self.baselines(of: report.name))
      #expect(report.baselines.allSatisfy { $0.throughputPerSecond > 0 })
      #expect(!report.actionCases.isEmpty, "profiled runs carry latencies")
      let isIO = ["search", "file-io", "echo"].contains(name)
      #expect((report.ioBackend != nil) == isIO)
    }
  }

  /// `file-io-cold` is not in the standard set; it runs here at a small volume so that it
  /// cannot rot.
  @Test func theColdFileWorkloadReadsPastTheCache() async throws {
    let workload = try #require(Workload.named("file-io-cold"))
    #expect(!workload.isStandard)
    let reports = try await workload.run(
      WorkloadOptions(actions: 128, producers: 1, profile: false), progress: BenchProgress())
    let report = try #require(reports.first)
    #expect(report.name == "file-io-cold")
    #expect(report.actions == 128)
    #expect(Set(report.baselines.map(\.name)) == Self.baselines(of: "file-io-cold"))
    #expect(report.parameters["openFlags"] == "O_DIRECT")
    #expect(report.ioBackend != nil)
  }

  /// `journal-recover` is not in the standard set; it runs here at a small volume so that it
  /// cannot rot: both recoveries check their state against the recorded one, and the one from
  /// a snapshot reads fewer bytes.
  @Test func theJournalRecoveryWorkloadRecoversFromASnapshot() async throws {
    let workload = try #require(Workload.named("journal-recover"))
    #expect(!workload.isStandard)
    let reports = try await workload.run(
      WorkloadOptions(actions: 20_000, producers: 1, profile: false), progress: BenchProgress())
    let report = try #require(reports.first)
    #expect(report.name == "journal-recover")
    #expect(report.actions == 20_000)
    #expect(Set(report.baselines.map(\.name)) == ["spool-full-replay"])
    let full = try #require(report.parameters["bytesReadFull"].flatMap { Int($0) })
    let fromSnapshot = try #require(report.parameters["bytesReadSnapshot"].flatMap { Int($0) })
    #expect(fromSnapshot < full)
  }

  /// `journal-shared` at a small volume (200 stores): both recoveries check their
  /// state, and the shared journal's reads the store's records only: well under a
  /// hundredth of the journal, since 200 stores share it evenly.
  @Test func theSharedJournalRecoveryWorkloadReadsOneStoresRecords() async throws {
    let workload = try #require(Workload.named("journal-shared"))
    #expect(!workload.isStandard)
    let reports = try await workload.run(
      WorkloadOptions(actions: 2_000, producers: 1, profile: false), progress: BenchProgress())
    let report = try #require(reports.first)
    #expect(report.parameters["stores"] == "200")
    #expect(Set(report.baselines.map(\.name)) == ["per-store-journal"])
    let shared = try #require(report.parameters["sharedBytesRead"].flatMap { Int($0) })
    let total = try #require(report.parameters["segmentBytes"].flatMap { Int($0) })
    #expect(report.parameters["directoryBytesRead"].flatMap { Int($0) } ?? 0 > 0)
    #expect(shared > 0 && shared * 100 < total)
    #expect(report.parameters["scannedSegments"] == "0")
  }

  /// With rounds, the workload runs that many times and reports each side's median, with
  /// every round's figures; only the last round is profiled. The soak runs once regardless.
  @Test func roundsRunTheWorkloadAgainAndReportMedians() async throws {
    let workload = try #require(Workload.named("counter"))
    let reports = try await workload.run(
      WorkloadOptions(actions: 256, profile: true, rounds: 3), progress: BenchProgress())
    let report = try #require(reports.first)
    let rounds = try #require(report.rounds)
    #expect(rounds.count == 3)
    let sorted = rounds.map(\.throughputPerSecond).sorted()
    #expect(report.throughputPerSecond == sorted[1])
    #expect(rounds.allSatisfy { $0.baselines.count == report.baselines.count })
    #expect(!report.actionCases.isEmpty, "the last round is profiled")
    #expect(Workload.named("soak")?.runsInRounds == false)
    // Which rounds a workload's body is asked to profile: the last one only.
    let profiled = Mutex<[Bool]>([])
    let probe = Workload(name: "probe", summary: "records its options", defaultActions: 1) {
      run in
      profiled.withLock { $0.append(run.options.profile) }
      return [WorkloadReport(name: "probe", actions: 1, durationSeconds: 0.001)]
    }
    _ = try await probe.run(WorkloadOptions(profile: true, rounds: 3), progress: BenchProgress())
    #expect(profiled.withLock { $0 } == [false, false, true])
    let once = try await workload.run(WorkloadOptions(actions: 256), progress: BenchProgress())
    #expect(once.first?.rounds == nil)
  }

  /// The registry, many-store, timer and idle-store workloads (not in the standard set) run,
  /// check their counts and report their figures.
  @Test func theRegistryAndIdleStoreWorkloadsRunAndReport() async throws {
    let registry = try #require(Workload.named("registry"))
    let lookups = try await registry.run(
      WorkloadOptions(actions: 2_000, rounds: 1), progress: BenchProgress())
    #expect(
      Set(lookups.first?.baselines.map(\.name) ?? [])
        == ["mutex-dictionary", "spool-2-tasks", "mutex-dictionary-2-tasks"])
    let many = try #require(Workload.named("many-stores"))
    let sends = try await many.run(
      WorkloadOptions(actions: 2_000, rounds: 1), progress: BenchProgress())
    #expect(
      Set(sends.first?.baselines.map(\.name) ?? [])
        == ["actor-dictionary", "store-array", "actor-array"])
    #expect(sends.first?.parameters["stores"] == "200")
    let timers = try #require(Workload.named("timers"))
    let fired = try await timers.run(
      WorkloadOptions(actions: 200, rounds: 1), progress: BenchProgress())
    #expect(fired.first?.baselines.map(\.name) == ["plain-actor"])
    let idle = try #require(Workload.named("idle-stores"))
    let reports = try await idle.run(
      WorkloadOptions(actions: 200, duration: .milliseconds(10)), progress: BenchProgress())
    let parameters = try #require(reports.first?.parameters)
    #expect(parameters["bytesPerStore"] != nil)
    #expect(parameters["bytesPerPlainActor"] != nil)
    #expect(parameters["idleCorePercent"] != nil)
  }

  @Test func everyWorkloadHasAName() {
    #expect(Set(Workload.all.map(\.name)).count == Workload.all.count)
    #expect(Workload.named("nope") == nil)
    let command = BenchRunner(workloads: Workload.all, commandName: "spool bench")
    #expect(command.definitionProblem() == nil)
  }

  @Test func theSoakRunsOnlyWhenNamed() {
    #expect(Workload.named("soak")?.isStandard == false)
    #expect(!Workload.standard.map(\.name).contains("soak"))
    let reportNames = Workload.standard.flatMap { Self.expectedReports[$0.name] ?? [$0.name] }
    #expect(Set(reportNames) == Set(Self.expectedBaselines.keys))
  }

  @Test func progressAdvancesWithinAPhase() {
    let progress = BenchProgress()
    progress.begin("a", total: 10)
    progress.advance(by: 5)
    #expect(progress.snapshot.fraction == 0.5)
    progress.begin("b", total: 0)
    #expect(progress.snapshot.completed == 0)
    #expect(progress.snapshot.phase == 2)
  }
}

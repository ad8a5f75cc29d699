import Spool
import SpoolProfiling
import Synchronization
import Testing

@testable import SpoolBench

/// A workload built with the public initializer: a fresh store per measurement, the driver's
/// units as the report's actions, the check on the final state, baselines measured after.
@Suite struct WorkloadTests {
  static func tally(
    _ driver: WorkloadDriver<Tally.State, Tally.Action>,
    check: @escaping @Sendable (Tally.State, Int) throws -> Void = Tally.check,
    baselines: [WorkloadBaseline] = []
  ) -> Workload {
    Workload(
      "tally", summary: "adds values", defaultActions: 1_000,
      initialState: Tally.State(), reducer: { Tally() },
      driver: driver, check: check, baselines: baselines)
  }

  @Test func enqueueFromOneProducerReportsTheVolume() async throws {
    let reports = try await Self.tally(.enqueue { .add($0) })
      .run(WorkloadOptions(actions: 5_000), progress: BenchProgress())
    let report = try #require(reports.first)
    #expect(reports.count == 1)
    #expect(report.name == "tally")
    #expect(report.actions == 5_000)
    #expect(report.durationSeconds > 0)
    #expect(report.parameters["producer"] == "enqueue")
    #expect(report.parameters["actions"] == "5000")
    #expect(report.baselines.isEmpty)
    #expect(report.actionCases.isEmpty, "not profiled")
  }

  /// Four producers share the volume, rounded down to a multiple of four; `nil` producers
  /// means `--producers`.
  @Test func enqueueFromSeveralProducers() async throws {
    let reports = try await Self.tally(.enqueue(producers: nil) { .add($0) })
      .run(WorkloadOptions(actions: 10_003, producers: 4), progress: BenchProgress())
    #expect(reports.first?.actions == 10_000)
  }

  @Test func sendAndEffectsAreAwaited() async throws {
    let reports = try await Self.tally(.send { .echo($0) })
      .run(WorkloadOptions(actions: 300, profile: true), progress: BenchProgress())
    let report = try #require(reports.first)
    #expect(report.actions == 300)
    #expect(report.parameters["producer"] == "await send")
    #expect(!report.actionCases.isEmpty, "profiled: per-action-case latencies")
  }

  /// A custom driver gets the volume and options and returns the units it did; what it does
  /// before `startMeasurement()` is not measured.
  @Test func aCustomDriverReturnsWhatItDid() async throws {
    let seen = Mutex<(actions: Int, producers: Int)>((0, 0))
    let workload = Self.tally(
      .custom("replay") { store, context in
        seen.withLock { $0 = (context.actions, context.options.producers) }
        try await Task.sleep(for: .milliseconds(200))  // setup, then the clock restarts
        context.startMeasurement()
        for index in 0..<10 { store.enqueue(.add(index)) }
        return 10
      })
    let reports = try await workload.run(
      WorkloadOptions(actions: 77, producers: 3), progress: BenchProgress())
    let report = try #require(reports.first)
    #expect(seen.withLock { $0 } == (77, 3))
    #expect(report.actions == 10)
    #expect(report.parameters["producer"] == "replay")
    #expect(report.durationSeconds < 0.2, "the setup before startMeasurement() is not timed")
  }

  /// The store is built with the workload's dependencies, as `Store(…withDependencies:)`.
  @Test func theStoreGetsTheWorkloadsDependencies() async throws {
    let workload = Workload(
      "stepper", summary: "steps by a dependency", defaultActions: 100,
      initialState: Stepper.State(), reducer: { Stepper() },
      withDependencies: { $0.stepSize = 3 },
      driver: .enqueue { _ in .step },
      check: { state, actions in
        guard state.total == 3 * actions else {
          throw WorkloadCheckError("total \(state.total), expected \(3 * actions)")
        }
      })
    let reports = try await workload.run(WorkloadOptions(), progress: BenchProgress())
    #expect(reports.first?.actions == 100, "the default volume")
  }

  /// A check that throws fails the run, named after the measurement.
  @Test func aLostActionFailsTheRun() async throws {
    let workload = Self.tally(
      .custom { store, context in
        for index in 0..<(context.actions - 1) { store.enqueue(.add(index)) }
        return context.actions  // claims one more than it sent
      })
    let error = await #expect(throws: WorkloadCheckError.self) {
      _ = try await workload.run(WorkloadOptions(actions: 100), progress: BenchProgress())
    }
    #expect(error?.measurement == "tally · spool")
    #expect(error?.description == "tally · spool: counted 99 (sum 4851), expected 100")
  }

  @Test func baselinesAreMeasuredAfterSpoolForEachRound() async throws {
    let order = Mutex<[String]>([])
    let workload = Self.tally(
      .custom { store, context in
        order.withLock { $0.append(context.label) }
        for index in 0..<context.actions { store.enqueue(.add(index)) }
        return context.actions
      },
      baselines: [
        WorkloadBaseline("raw-loop") { context in
          order.withLock { $0.append(context.label) }
          var state = Tally.State()
          for index in 0..<context.actions { _ = Tally().reduce(into: &state, action: .add(index)) }
          try Tally.check(state, context.actions)
        }
      ])
    let reports = try await workload.run(
      WorkloadOptions(actions: 64, rounds: 2), progress: BenchProgress())
    let report = try #require(reports.first)
    #expect(report.baselines.map(\.name) == ["raw-loop"])
    #expect(report.rounds?.count == 2)
    #expect(
      order.withLock { $0 } == [
        "tally · round 1/2 · spool", "tally · round 1/2 · raw-loop",
        "tally · round 2/2 · spool", "tally · round 2/2 · raw-loop",
      ])
  }

  @Test func aFailingBaselineFailsTheRun() async throws {
    let workload = Self.tally(
      .enqueue { .add($0) },
      baselines: [WorkloadBaseline("broken") { _ in throw WorkloadCheckError("lost one") }])
    let error = await #expect(throws: WorkloadCheckError.self) {
      _ = try await workload.run(WorkloadOptions(actions: 10), progress: BenchProgress())
    }
    #expect(error?.description == "tally · broken: lost one")
  }
}

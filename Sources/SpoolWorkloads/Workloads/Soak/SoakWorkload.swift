import SpoolCore
import SpoolBench
import SpoolIO
import SpoolProfiling

/// `soak`: every workload's feature at once, each in its own store with its own driver, for a
/// fixed duration, with the process's memory and the stores' latencies sampled over time.
///
/// Drivers (``SoakDrivers``): `counter` (enqueue, with a state observer), `counter-send`
/// (await send), `fan-in` (`--producers` producers, with a state observer), `effects`,
/// `cancellation` (restarts with `cancelInFlight`), `search` and `file-io` (reads of one file
/// through SpoolIO), `echo` (TCP over loopback), `todos` (row actions on 10,000 rows, with a
/// state observer). Each works in windows of `--actions` (default 1,000) and awaits its store
/// after each, until the deadline; then checks its exact counts against its store's state.
///
/// Every store is instrumented by one ``TimelineRecorder``; a sampler takes a
/// ``TimelineSample`` every interval (1 s, or `duration / 240` for soaks over 4 minutes): the
/// resident set size, actions reduced, p50/p99/max of queue wait and reduce time overall and
/// p99 per feature, live effects. ``FlatnessCriteria`` judges the samples; the report carries
/// them and the verdict as its ``WorkloadReport/timeline``. The first samples (the warm-up)
/// absorb each driver's setup (stores made, rows built, clients connected).
///
/// Not in the standard set: it runs only when named (`spool bench soak --duration 60s`).
enum SoakWorkload {
  static let defaultDuration = Duration.seconds(60)

  static let workload = Workload(
    name: "soak",
    summary: "every feature at once; memory and latency sampled over time",
    defaultActions: 1_000,
    isStandard: false,
    runsInRounds: false,
    takesDuration: true
  ) { run in
    let configuration = SoakConfiguration(
      duration: run.options.duration ?? defaultDuration, window: run.actions,
      producers: run.options.producers)
    return [try await soak(configuration, progress: run.progress)]
  }

  typealias Driver = @Sendable (SoakContext) async throws -> SoakTally

  /// The drivers, in the order their features appear in the report.
  static let drivers: [Driver] = [
    SoakDrivers.counter, SoakDrivers.counterSend, SoakDrivers.fanIn, SoakDrivers.effects,
    SoakDrivers.cancellation, SoakDrivers.search, SoakDrivers.fileIO, SoakDrivers.echo,
    SoakDrivers.todos,
  ]

  /// The features of ``drivers``, in the same order: the order of the report's rows.
  static let featureNames = [
    "counter", "counter-send", "fan-in", "effects", "cancellation", "search", "file-io",
    "echo", "todos",
  ]

  /// Runs a soak and returns its report, timeline and verdict included.
  ///
  /// - Throws: ``WorkloadCheckError`` when a driver's counts do not match its store's state or
  ///   effects are still live at the end (a verdict of "grew" is not an error: it is in the
  ///   report), or the I/O error of a setup that failed.
  package static func soak(
    _ configuration: SoakConfiguration, progress: BenchProgress,
    criteria: FlatnessCriteria = FlatnessCriteria()
  ) async throws -> WorkloadReport {
    let engine = IOEngine.shared
    let path = try await WorkloadFile.prepare(
      name: "soak", blocks: FileIOWorkload.blocks, blockSize: FileIOWorkload.blockSize,
      engine: engine)
    defer { WorkloadFile.remove(path) }
    let file = try await IOFile.open(path, on: engine)
    let interval = nanoseconds(configuration.interval)
    let duration = nanoseconds(configuration.duration)
    let sampleCount = max(1, Int(duration / interval))
    progress.begin("soak · \(sampleCount) samples", total: sampleCount)

    MemoryStatistics.resetPeak()
    let residentBefore = MemoryStatistics.currentResidentBytes()
    let timeline = TimelineRecorder(featureOrder: featureNames)
    let clockStart = ContinuousClock.now
    let start = SpoolTime.now()
    timeline.restart(at: start)
    let context = SoakContext(
      timeline: timeline, configuration: configuration, deadline: start + duration,
      engine: engine, file: file)
    let sampler = Task {
      var samples: [TimelineSample] = []
      for tick in 1...sampleCount {
        do {
          try await Task.sleep(
            until: clockStart + configuration.interval * tick, clock: .continuous)
        } catch {
          break
        }
        samples.append(
          timeline.sample(residentBytes: MemoryStatistics.currentResidentBytes() ?? 0))
        progress.advance(by: 1)
      }
      return samples
    }
    let tallies: [SoakTally]
    do {
      tallies = try await withThrowingTaskGroup(of: (Int, SoakTally).self) { group in
        for (index, driver) in drivers.enumerated() {
          group.addTask { (index, try await driver(context)) }
        }
        var tallies: [(Int, SoakTally)] = []
        for try await tally in group { tallies.append(tally) }
        return tallies.sorted { $0.0 < $1.0 }.map(\.1)
      }
    } catch {
      sampler.cancel()
      _ = await sampler.value
      try? await file.close()
      throw error
    }
    let end = SpoolTime.now()
    let samples = await sampler.value
    let peak = MemoryStatistics.peakResidentBytes()
    try await file.close()

    let effects = timeline.effects()
    let live = effects.reduce(0) { $0 + $1.inFlight }
    try check(live == 0, "soak", "\(live) effects still live after every driver finished")
    let actionCases = timeline.actionCases()
    var parameters = [
      "durationSeconds": format(configuration.duration),
      "intervalSeconds": format(configuration.interval),
      "window": String(configuration.window),
      "producers": String(configuration.producers),
      "readWindow": String(configuration.readWindow),
      "connections": String(configuration.connections),
      "rows": String(configuration.rows),
      "latencies": "every store instrumented by one TimelineRecorder",
    ]
    if let residentBefore { parameters["residentBytesBefore"] = String(residentBefore) }
    for tally in tallies {
      parameters["driven.\(tally.feature)"] = "\(tally.units) \(tally.unit)"
      if let observed = tally.observedStates {
        parameters["observed.\(tally.feature)"] = "\(observed) states"
      }
    }
    return WorkloadReport(
      name: "soak",
      parameters: parameters,
      actions: actionCases.reduce(0) { $0 + $1.count },
      durationSeconds: Double(end - start) / 1e9,
      peakRSSBytes: peak,
      ioBackend: engine.backend.rawValue,
      actionCases: actionCases,
      effects: effects,
      timeline: Timeline(
        intervalSeconds: Double(interval) / 1e9, samples: samples,
        flatness: criteria.verdict(for: samples)))
  }

  static func nanoseconds(_ duration: Duration) -> UInt64 {
    let (seconds, attoseconds) = duration.components
    return UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
  }

  static func format(_ duration: Duration) -> String {
    let seconds = Double(nanoseconds(duration)) / 1e9
    return seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
  }
}

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif
import SpoolCore
import SpoolBench
import SpoolJournal

/// `journal-durable`: what waiting for durability costs a journaled store. Eight concurrent
/// producers each `send` an action to one journaled ``CounterFeature`` store and acknowledge it
/// only after ``JournalRecorder/waitUntilDurable()`` (the measurement), or right away (the
/// `spool-journaled` baseline: recorded, not synced), in the same run; `spool/baseline` is the
/// share of the non-durable throughput that durability keeps. Not in the standard set: it
/// writes to a temporary folder.
///
/// A producer that waits for each acknowledgement before its next send has one action in
/// flight, so no journal can acknowledge more than `producers` actions per sync: the durable
/// throughput is bounded by `producers / sync time`, whatever the non-durable one is. What
/// group commit decides is how close to that bound the journal gets, so the report gives the
/// bound's share and the actions acknowledged per sync, with 8 producers and again with
/// ``wideProducers``.
///
/// Parameters: `syncMicroseconds`, one producer's acknowledgement with no other waiter to share
/// its sync (one `fdatasync` per action, over 200 actions); `actionsPerSync` and
/// `shareOfBound` with 8 producers (`shareOfBound` is the throughput over `8 / sync time`);
/// `wideProducers`, `wideThroughputPerSecond`, `wideActionsPerSync` and `wideShareOfBound`, the
/// same with more producers; and `idleCorePercent`, the CPU time of 1,000 journaled stores left
/// idle for 10 s after one action each, in percent of one core.
enum DurableJournalWorkload {
  static let producers = 8
  /// Producers of the second durable run: a server with this many requests waiting.
  static let wideProducers = 128

  static let workload = Workload(
    name: "journal-durable",
    summary: "8 producers acknowledging each action after it is synced, or when it is recorded",
    defaultActions: 20_000,
    isStandard: false
  ) { run in
    let folder = try JournalWorkload.TemporaryFolder(run.label("journal-durable"))
    defer { folder.remove() }
    let actions = run.actions

    var durableSummary: JournalSummary?
    let durable = try await run.spool(CounterFeature.Action.self) { _ in
      let (measurement, summary) = try await measure(
        run, folder.path + "/durable", actions: actions, producers: producers, durable: true)
      durableSummary = summary
      return measurement
    }
    run.progress.begin(run.label("spool-journaled"), total: actions)
    var (journaled, _) = try await measure(
      run, folder.path + "/journaled", actions: actions, producers: producers, durable: false)
    journaled.name = "spool-journaled"
    run.progress.begin(run.label("spool-wide"), total: actions)
    let (wide, wideSummary) = try await measure(
      run, folder.path + "/wide", actions: actions, producers: wideProducers, durable: true)

    let single = try await measureSingleSync(folder.path + "/single", actions: 200)
    let idle = try await measureIdle(folder.path, stores: 1_000, seconds: 10)
    var parameters = [
      "producers": String(producers),
      "wideProducers": String(wideProducers),
      "syncMicroseconds": String((single * 1e7).rounded() / 10),
      "idleCorePercent": String((idle * 1_000).rounded() / 1_000),
      "wideThroughputPerSecond": String(Int(wide.throughputPerSecond.rounded())),
    ]
    func rounded(_ value: Double) -> String { String((value * 1_000).rounded() / 1_000) }
    if let durableSummary {
      parameters["actionsPerSync"] = rounded(perSync(durableSummary))
      parameters["shareOfBound"] = rounded(
        durable.measurement.throughputPerSecond * single / Double(producers))
    }
    parameters["wideActionsPerSync"] = rounded(perSync(wideSummary))
    parameters["wideShareOfBound"] = rounded(wide.throughputPerSecond * single / Double(wideProducers))
    return [run.report(durable, baselines: [journaled], parameters: parameters)]
  }

  /// Durable acknowledgements per sync.
  static func perSync(_ summary: JournalSummary) -> Double {
    Double(summary.actions) / Double(max(summary.durableSyncs, 1))
  }

  /// `actions` sends from `producers` tasks into one journaled store, each acknowledged after
  /// `waitUntilDurable()` when `durable`; with what the journal wrote.
  static func measure(
    _ run: WorkloadRun, _ path: String, actions: Int, producers: Int, durable: Bool
  ) async throws -> (Measurement, JournalSummary) {
    let journal = try ActionJournal<CounterFeature.Action>.recording(to: path)
    let store = Store(initialState: CounterFeature.State(), instrumentation: journal) {
      CounterFeature()
    }
    let perProducer = actions / producers
    let measurement = try await Measurement.time("spool", actions: perProducer * producers) {
      try await withThrowingTaskGroup(of: Void.self) { group in
        for _ in 0..<producers {
          group.addTask {
            for _ in 0..<perProducer {
              await store.send(.increment)
              if durable { try await journal.waitUntilDurable() }
            }
          }
        }
        try await group.waitForAll()
      }
      run.progress.advance(by: perProducer * producers)
    }
    let state = await store.state
    try checkCount(state.count, expected: perProducer * producers, run.label("spool"))
    let summary = try await journal.finish(finalState: state)
    return (measurement, summary)
  }

  /// Seconds per durable acknowledgement with one producer: one sync per action.
  static func measureSingleSync(_ path: String, actions: Int) async throws -> Double {
    let journal = try ActionJournal<CounterFeature.Action>.recording(to: path)
    let store = Store(initialState: CounterFeature.State(), instrumentation: journal) {
      CounterFeature()
    }
    let measurement = try await Measurement.time("single", actions: actions) {
      for _ in 0..<actions {
        await store.send(.increment)
        try await journal.waitUntilDurable()
      }
    }
    try await journal.finish(finalState: await store.state)
    return measurement.seconds / Double(actions)
  }

  /// The process's CPU time over `seconds` while `stores` journaled stores, one action each,
  /// sit idle; in percent of one core.
  static func measureIdle(_ folder: String, stores: Int, seconds: Int) async throws -> Double {
    var journals: [JournalRecorder<CounterFeature.Action>] = []
    var held: [Store<CounterFeature.State, CounterFeature.Action>] = []
    for index in 0..<stores {
      let journal = try ActionJournal<CounterFeature.Action>.recording(
        to: "\(folder)/idle-\(index)")
      let store = Store(initialState: CounterFeature.State(), instrumentation: journal) {
        CounterFeature()
      }
      await store.send(.increment)
      try await journal.flush()
      journals.append(journal)
      held.append(store)
    }
    let before = cpuSeconds()
    try await Task.sleep(for: .seconds(seconds))
    let used = cpuSeconds() - before
    for (journal, store) in zip(journals, held) {
      try await journal.finish(finalState: await store.state)
    }
    return used / Double(seconds) * 100
  }

  /// User and system CPU time of the process so far.
  static func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func seconds(_ time: timeval) -> Double {
      Double(time.tv_sec) + Double(time.tv_usec) / 1e6
    }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
  }
}

import SpoolCore
import SpoolBench

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// `idle-stores`: what an idle store costs a process that holds many, one per entity.
///
/// Memory: `--actions` plain actors holding a counter's state (``PlainActorStore``), then as
/// many stores of the same state, each sent one action; the resident set's growth divided by
/// the count, for each (`bytesPerPlainActor`, `bytesPerStore`, and their ratio). CPU: 1,000
/// stores, each sent one action, then left idle for `--duration` seconds (10 by default):
/// the process's user and system time over that time, as a share of one core
/// (`idleCorePercent`). The measured throughput is the creation of the stores.
enum IdleStoresWorkload {
  static let idleStores = 1_000

  static let workload = Workload(
    name: "idle-stores",
    summary: "memory per idle store against a plain actor; CPU of 1,000 idle stores",
    defaultActions: 100_000, isStandard: false, runsInRounds: false, takesDuration: true
  ) { run in
    let count = run.actions
    let idleDuration = run.options.duration ?? .seconds(10)

    // CPU of idle stores.
    var idle: [Store<CounterFeature.State, CounterFeature.Action>] = []
    for _ in 0..<idleStores {
      let store = Store(initialState: CounterFeature.State()) { CounterFeature() }
      await store.send(.increment)
      idle.append(store)
    }
    let cpuBefore = processCPUSeconds()
    let wallBefore = SpoolTime.now()
    try? await Task.sleep(for: idleDuration)
    let cpu = processCPUSeconds() - cpuBefore
    let wall = Double(SpoolTime.now() - wallBefore) / 1e9
    try checkCount(idle.count, expected: idleStores, run.label("idle"))

    // Memory: plain actors, then stores, in one process.
    var actors: [PlainActorStore<CounterFeature>] = []
    actors.reserveCapacity(count)
    var stores: [Store<CounterFeature.State, CounterFeature.Action>] = []
    stores.reserveCapacity(count)
    let beforeActors = MemoryStatistics.currentResidentBytes() ?? 0
    let plain = await Measurement.time("plain-actor", actions: count) {
      for _ in 0..<count {
        let actor = PlainActorStore(initialState: CounterFeature.State(), reducer: CounterFeature())
        await actor.send(.increment)
        actors.append(actor)
      }
    }
    let afterActors = MemoryStatistics.currentResidentBytes() ?? 0
    let spool = try await run.spool(CounterFeature.Action.self) { _ in
      await Measurement.time("spool", actions: count) {
        for _ in 0..<count {
          let store = Store(initialState: CounterFeature.State()) { CounterFeature() }
          await store.send(.increment)
          stores.append(store)
        }
      }
    }
    let afterStores = MemoryStatistics.currentResidentBytes() ?? 0
    try checkCount(stores.count + actors.count, expected: 2 * count, run.label("spool"))
    let perActor = Double(afterActors - beforeActors) / Double(count)
    let perStore = Double(afterStores - afterActors) / Double(count)
    let idlePercent = 100 * cpu / max(wall, 0.001)
    var parameters: [String: String] = [:]
    parameters["stateBytes"] = String(MemoryLayout<CounterFeature.State>.size)
    parameters["bytesPerPlainActor"] = String(Int(perActor.rounded()))
    parameters["bytesPerStore"] = String(Int(perStore.rounded()))
    parameters["storeToPlainActor"] = format2(perStore / max(perActor, 1))
    parameters["idleStores"] = String(idleStores)
    parameters["idleSeconds"] = format2(wall)
    parameters["idleCorePercent"] = format2(idlePercent)
    return [run.report(spool, baselines: [plain], parameters: parameters)]
  }

  /// The process's user and system CPU time, in seconds (`/proc/self/stat`'s utime + stime).
  static func processCPUSeconds() -> Double {
    guard let stat = readProcSelfStat() else { return 0 }
    // Fields after the command name, which is in parentheses and may hold spaces.
    guard let close = stat.lastIndex(of: ")") else { return 0 }
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
    guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else {
      return 0
    }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
  }

  static func readProcSelfStat() -> String? {
    let descriptor = open("/proc/self/stat", O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var bytes = [UInt8](repeating: 0, count: 4096)
    let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
    guard count > 0 else { return nil }
    return String(decoding: bytes[..<count], as: UTF8.self)
  }

  static func format2(_ value: Double) -> String {
    String(Double(Int((value * 100).rounded())) / 100)
  }
}

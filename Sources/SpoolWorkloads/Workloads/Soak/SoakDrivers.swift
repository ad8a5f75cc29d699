import SpoolCore
import SpoolBench
import SpoolIO
import SpoolProfiling
import Synchronization

/// What every soak driver shares: the timeline its store reports to, when to stop, the volumes.
struct SoakContext: Sendable {
  let timeline: TimelineRecorder
  let configuration: SoakConfiguration
  /// `SpoolTime` at which drivers stop starting new windows.
  let deadline: UInt64
  let engine: IOEngine
  /// The data file of `search` and `file-io`, open for reads through SpoolIO.
  let file: IOFile

  /// Whether a driver may start another window.
  var running: Bool { SpoolTime.now() < deadline && !Task.isCancelled }

  func label(_ feature: String) -> String { "soak · \(feature)" }
}

/// What one driver did, checked against its store's final state before it is returned.
struct SoakTally: Sendable {
  /// The feature, `counter`.
  var feature: String
  /// Units it drove: actions, round trips, reads or keystrokes.
  var units: Int
  /// What the unit is, for the report's parameters.
  var unit: String
  /// States its observer saw, when it had one.
  var observedStates: Int?
}

/// One driver per feature of the workloads, each with its own store, running until the deadline
/// in windows (a window sent, then `finish()`), so that every store's queue stays bounded and
/// its latency is a property of the store, not of how far the producers ran ahead.
///
/// Every driver runs at least one window, however late it starts. Every window starts with
/// `Task.yield()`. Without it, `counter` and `counter-send` keep both cooperative threads of a
/// 2-core machine for the whole run (an `await` into an idle store runs on the caller's thread
/// without suspending), and no other driver, nor the sampler, runs until the deadline.
enum SoakDrivers {
  /// `counter`: one synchronous producer `enqueue`s increments; an observer follows the count.
  static func counter(_ soak: SoakContext) async throws -> SoakTally {
    let feature = "counter"
    let store = Store(
      initialState: CounterFeature.State(),
      instrumentation: soak.timeline.instrumentation(feature, for: CounterFeature.Action.self)
    ) { CounterFeature() }
    let observer = observe(store.states.map(\.count))
    var sent = 0
    repeat {
      await Task.yield()
      for _ in 0..<soak.configuration.window { store.enqueue(.increment) }
      sent += soak.configuration.window
      await store.finish()
    } while soak.running
    let count = await store.state.count
    let observed = try await finish(observer, soak.label(feature), final: count)
    try checkCount(count, expected: sent, soak.label(feature))
    return SoakTally(feature: feature, units: sent, unit: "actions", observedStates: observed)
  }

  /// `counter-send`: one task awaits `send` for every increment.
  static func counterSend(_ soak: SoakContext) async throws -> SoakTally {
    let feature = "counter-send"
    let store = Store(
      initialState: CounterFeature.State(),
      instrumentation: soak.timeline.instrumentation(feature, for: CounterFeature.Action.self)
    ) { CounterFeature() }
    var sent = 0
    repeat {
      await Task.yield()
      for _ in 0..<soak.configuration.window { await store.send(.increment) }
      sent += soak.configuration.window
    } while soak.running
    try checkCount(await store.state.count, expected: sent, soak.label(feature))
    return SoakTally(feature: feature, units: sent, unit: "actions")
  }

  /// `fan-in`: in rounds, `producers` tasks `enqueue` a window of distinct values each, then
  /// the store is awaited; an observer follows the count. The checksum proves each value
  /// arrived once.
  static func fanIn(_ soak: SoakContext) async throws -> SoakTally {
    let feature = "fan-in"
    let store = Store(
      initialState: CounterFeature.State(),
      instrumentation: soak.timeline.instrumentation(feature, for: CounterFeature.Action.self)
    ) { CounterFeature() }
    let observer = observe(store.states.map(\.count))
    let producers = soak.configuration.producers
    let window = soak.configuration.window
    var sent = 0
    repeat {
      await Task.yield()
      let base = sent
      await withTaskGroup(of: Void.self) { group in
        for producer in 0..<producers {
          group.addTask {
            let first = base + producer * window
            for value in first..<(first + window) { store.enqueue(.add(value)) }
          }
        }
      }
      sent += producers * window
      await store.finish()
    } while soak.running
    let state = await store.state
    let observed = try await finish(
      observer, soak.label(feature), final: state.count)
    try CounterWorkloads.verifyValues(actions: sent)(state, soak.label(feature))
    return SoakTally(feature: feature, units: sent, unit: "actions", observedStates: observed)
  }

  /// `effects`: a window of requests, each answered by its `.run` effect, then `finish()`.
  static func effects(_ soak: SoakContext) async throws -> SoakTally {
    let feature = "effects"
    let store = Store(
      initialState: EffectsFeature.State(),
      instrumentation: soak.timeline.instrumentation(feature, for: EffectsFeature.Action.self)
    ) { EffectsFeature() }
    var sent = 0
    repeat {
      await Task.yield()
      for value in sent..<(sent + soak.configuration.window) { store.enqueue(.request(value)) }
      sent += soak.configuration.window
      await store.finish()
    } while soak.running
    let state = await store.state
    let label = soak.label(feature)
    try checkCount(state.responses, expected: sent, label, what: "responses")
    try check(state.sum == sent &* (sent &- 1) / 2, label, "response checksum mismatch")
    try check(store.runningEffectCount == 0, label, "effects still running after finish()")
    return SoakTally(feature: feature, units: sent, unit: "round trips")
  }

  /// `cancellation`: a window of restarts of the long effect (`cancelInFlight`), then `.stop`
  /// and `finish()`; no long effect may fire, none may stay live.
  static func cancellation(_ soak: SoakContext) async throws -> SoakTally {
    let feature = "cancellation"
    let store = Store(
      initialState: CancellationFeature.State(),
      instrumentation: soak.timeline.instrumentation(
        feature, for: CancellationFeature.Action.self)
    ) {
      CancellationFeature()
    } withDependencies: {
      // Explicit, so that a test runner (whose default clock is unimplemented) runs it too.
      $0.continuousClock = ContinuousClock()
    }
    var sent = 0
    repeat {
      await Task.yield()
      for value in sent..<(sent + soak.configuration.window) { store.enqueue(.restart(value)) }
      store.enqueue(.stop)
      sent += soak.configuration.window
      await store.finish()
    } while soak.running
    let state = await store.state
    let label = soak.label(feature)
    try checkCount(state.restarts, expected: sent, label)
    try check(state.fired == 0, label, "\(state.fired) long effects fired; none should")
    try check(store.runningEffectCount == 0, label, "effects still live after stop and finish()")
    return SoakTally(feature: feature, units: sent, unit: "restarts")
  }

  /// `search`: words typed one keystroke at a time (debounced on `IOClock`, answered from the
  /// data file through SpoolIO), `finish()` after each word.
  static func search(_ soak: SoakContext) async throws -> SoakTally {
    let feature = "search"
    let file = soak.file
    let search = SearchWorkload.searcher { offset in
      try await file.read(upTo: SearchWorkload.blockSize, at: offset)
    }
    let store = Store(
      initialState: SearchFeature.State(),
      instrumentation: soak.timeline.instrumentation(feature, for: SearchFeature.Action.self)
    ) {
      SearchFeature(debounce: SearchWorkload.debounce, search: search)
    } withDependencies: {
      $0.continuousClock = IOClock(engine: soak.engine)
    }
    let words = SearchWorkload.makeWords(keystrokes: 4_096)
    var typed = 0
    var keystrokes = 0
    var last = ""
    repeat {
      await Task.yield()
      let word = words[typed % words.count]
      for prefix in word { store.enqueue(.queryChanged(prefix)) }
      keystrokes += word.count
      typed += 1
      last = word.last ?? ""
      await store.finish()
    } while soak.running
    let state = await store.state
    let label = soak.label(feature)
    try checkCount(state.keystrokes, expected: keystrokes, label, what: "keystrokes")
    // At least one answer per word; more when the producer was descheduled mid-word for longer
    // than the debounce (see the `search` workload).
    try check(
      state.responses >= typed && state.responses <= keystrokes, label,
      "\(state.responses) answers for \(typed) words")
    try check(state.answeredQuery == last, label, "the last word was not answered")
    return SoakTally(feature: feature, units: keystrokes, unit: "keystrokes")
  }

  /// `file-io`: windows of block reads of the data file through SpoolIO.
  static func fileIO(_ soak: SoakContext) async throws -> SoakTally {
    let feature = "file-io"
    let file = soak.file
    let blockSize = FileIOWorkload.blockSize
    let store = Store(
      initialState: FileReaderFeature.State(),
      instrumentation: soak.timeline.instrumentation(feature, for: FileReaderFeature.Action.self)
    ) {
      FileReaderFeature(blockSize: blockSize) { offset in
        try await file.read(upTo: blockSize, at: offset).count
      }
    }
    var sent = 0
    var block = 0
    repeat {
      await Task.yield()
      for _ in 0..<soak.configuration.readWindow {
        block = (block &* 1_103_515_245 &+ 12_345) & 0x7fff_ffff
        store.enqueue(.read(block: block % FileIOWorkload.blocks))
      }
      sent += soak.configuration.readWindow
      await store.finish()
    } while soak.running
    let state = await store.state
    let label = soak.label(feature)
    try checkCount(state.completed, expected: sent, label, what: "reads")
    try check(
      state.bytes == sent * blockSize, label,
      "read \(state.bytes) bytes, expected \(sent * blockSize)")
    return SoakTally(feature: feature, units: sent, unit: "reads")
  }

  /// `echo`: the TCP echo server store with one child feature per connection; each client
  /// sends a message and waits for its echo until the deadline, then closes.
  static func echo(_ soak: SoakContext) async throws -> SoakTally {
    let feature = "echo"
    let label = soak.label(feature)
    let engine = soak.engine
    let connections = soak.configuration.connections
    let size = EchoWorkload.messageSize
    let server = try await EchoServer.start(
      connections: connections, engine: engine,
      instrumentation: soak.timeline.instrumentation(feature, for: EchoServerFeature.Action.self),
      label: label)
    let message = [UInt8](repeating: 0x5A, count: size)
    let roundTrips = try await withThrowingTaskGroup(of: Int.self) { group in
      for client in server.clients {
        group.addTask {
          var trips = 0
          repeat {
            await Task.yield()
            try await EchoServer.roundTrip(client, message, label: label)
            trips += 1
          } while soak.running
          return trips
        }
      }
      return try await group.reduce(0, +)
    }
    try await server.stop(expectingBytes: roundTrips * size)
    return SoakTally(feature: feature, units: roundTrips, unit: "round trips")
  }

  /// `todos`: windows of row actions on pseudo-random rows of the list; an observer follows
  /// the number of row actions.
  static func todos(_ soak: SoakContext) async throws -> SoakTally {
    let feature = "todos"
    let rows = soak.configuration.rows
    let store = Store(
      initialState: TodosFeature.State(rows: rows),
      instrumentation: soak.timeline.instrumentation(feature, for: TodosFeature.Action.self)
    ) { TodosFeature() }
    let observer = observe(store.states.map(\.rowActions))
    var sent = 0
    repeat {
      await Task.yield()
      for index in sent..<(sent + soak.configuration.window) {
        store.enqueue(TodosWorkload.action(index, rows: rows))
      }
      sent += soak.configuration.window
      await store.finish()
    } while soak.running
    let state = await store.state
    let observed = try await finish(
      observer, soak.label(feature), final: state.rowActions)
    try TodosWorkload.verify(sent)(state, soak.label(feature))
    return SoakTally(feature: feature, units: sent, unit: "actions", observedStates: observed)
  }

  /// What an observer saw: how many states, how often a count went down, the last one.
  struct Observation: Sendable {
    var states = 0
    var decreases = 0
    var last = -1
  }

  /// A task following a count through a store's coalescing `states`, and what it saw so far.
  final class Observer: Sendable {
    // Written by the observing task, read by the driver; protected by its lock.
    let seen = Mutex(Observation())
    private let task = Mutex<Task<Void, Never>?>(nil)

    /// Starts following a count through a store's `states`, until ``stop()``.
    init(_ states: StoreStates<Int>) {
      let task = Task { [self] in
        for await count in states {
          self.seen.withLock {
            if count < $0.last { $0.decreases += 1 }
            $0.last = count
            $0.states += 1
          }
        }
      }
      self.task.withLock { $0 = task }
    }

    /// Cancels the observing task and waits for it to end.
    func stop() async {
      guard let task = task.withLock({ $0 }) else { return }
      task.cancel()
      await task.value
    }
  }

  static func observe(_ states: StoreStates<Int>) -> Observer {
    Observer(states)
  }

  /// Waits until the observer has caught up with the store's final count (it coalesces, so it
  /// gets the latest state once the store is idle), stops it, and checks that it never saw a
  /// count go down. Returns the number of states it saw.
  static func finish(_ observer: Observer, _ label: String, final: Int) async throws -> Int {
    try await EchoWorkload.waitUntil(label, "the observer saw the final count \(final)") {
      observer.seen.withLock { $0.last == final }
    }
    await observer.stop()
    let observation = observer.seen.withLock { $0 }
    try check(
      observation.decreases == 0, label,
      "the observer saw the count go down \(observation.decreases) times")
    return observation.states
  }
}

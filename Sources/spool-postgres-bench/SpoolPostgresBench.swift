// Measures SpoolPostgres against a running PostgreSQL: durable actions per second with
// concurrent producers (beside SpoolJournal's file journal, in the same run), and the time one
// node takes to take one entity over (lease, epoch, snapshot, replay of its rows).
//
//   swift run -c release spool-postgres-bench postgres://postgres@127.0.0.1:54329/spool_test
//
// Options (after the URL): --producers N (8), --actions N per producer and round (2,500),
// --window N (acknowledgements each producer leaves outstanding: 64), --replay N (rows after
// the snapshot in the take-over: 1,000), --rounds N (3). Each run uses a schema of its own,
// dropped at its end.
import Foundation
import PostgresNIO
import SpoolCore
import SpoolJournal
import SpoolPostgres

/// The measured feature: a counter whose state also keeps the last value, so that replay
/// does real work per action.
struct Counter: Reducer {
  struct State: Codable, Equatable, Sendable {
    var count = 0
    var total = 0
  }

  enum Action: Codable, Sendable {
    case add(Int)
  }

  var body: some Reducer<State, Action> {
    Reduce { state, action in
      switch action {
      case .add(let value):
        state.count += 1
        state.total &+= value
      }
      return .none
    }
  }
}

struct Options {
  var url = ""
  var producers = 8
  var actions = 2_500
  var window = 64
  var replay = 1_000
  var rounds = 3

  init(_ arguments: [String]) throws {
    var rest = arguments[...]
    while let argument = rest.popFirst() {
      func value() throws -> Int {
        guard let text = rest.popFirst(), let value = Int(text), value > 0 else {
          throw BenchError("\(argument) needs a positive integer")
        }
        return value
      }
      switch argument {
      case "--producers": producers = try value()
      case "--actions": actions = try value()
      case "--window": window = try value()
      case "--replay": replay = try value()
      case "--rounds": rounds = try value()
      case _ where !argument.hasPrefix("--") && url.isEmpty: url = argument
      default: throw BenchError("unknown argument \(argument)")
      }
    }
    if url.isEmpty {
      url = ProcessInfo.processInfo.environment["SPOOL_POSTGRES_URL"] ?? ""
    }
    guard !url.isEmpty else {
      throw BenchError(
        "usage: spool-postgres-bench URL [--producers N] [--actions N] [--window N] "
          + "[--replay N] [--rounds N] (or SPOOL_POSTGRES_URL)")
    }
  }
}

struct BenchError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

/// Runs `producers` producers, each sending `actions` actions to a store of its own and
/// acknowledging them with `acknowledge` every `window` actions and at its end; returns
/// acknowledged actions per second.
func measureProducers(
  producers: Int, actions: Int, window: Int,
  makeStore: @Sendable (Int) async throws -> (
    Store<Counter.State, Counter.Action>, @Sendable () async throws -> Void
  )
) async throws -> Double {
  var stores: [(Store<Counter.State, Counter.Action>, @Sendable () async throws -> Void)] = []
  for producer in 0..<producers { stores.append(try await makeStore(producer)) }
  let clock = ContinuousClock()
  let start = clock.now
  try await withThrowingTaskGroup(of: Void.self) { group in
    for (store, acknowledge) in stores {
      group.addTask {
        // Up to `window` actions in flight: each batch of `window` sends is acknowledged by
        // one wait, which covers every action sent before it.
        var sent = 0
        while sent < actions {
          let batch = min(window, actions - sent)
          for value in 0..<batch { store.enqueue(.add(sent + value)) }
          await store.send(.add(-1))
          sent += batch
          try await acknowledge()
        }
      }
    }
    try await group.waitForAll()
  }
  let seconds = (clock.now - start) / .seconds(1)
  for (store, _) in stores { await store.finish() }
  // Each producer also sent one `.add(-1)` per batch, acknowledged too.
  let batches = (actions + window - 1) / window
  return Double(producers * (actions + batches)) / seconds
}

func median(_ values: [Double]) -> Double {
  let sorted = values.sorted()
  return sorted[sorted.count / 2]
}

@main
struct Bench {
  static func main() async {
    do {
      try await run(Options(Array(CommandLine.arguments.dropFirst())))
    } catch {
      FileHandle.standardError.write(Data("spool-postgres-bench: \(error)\n".utf8))
      exit(1)
    }
  }

  static func run(_ options: Options) async throws {
    let schema = "bench_\(UInt32.random(in: 0...UInt32.max))"
    var configuration = try PostgresJournalConfiguration(url: options.url, nodeAddress: "bench-a")
    configuration.schema = schema
    let node = try await PostgresJournalNode.connect(configuration)
    print(
      "machine: \(ProcessInfo.processInfo.activeProcessorCount) cores; load average "
        + ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?")
        .split(separator: " ").prefix(3).joined(separator: " "))
    print(
      "durable actions/s, \(options.producers) producers, \(options.actions) actions each, "
        + "window \(options.window) (median of \(options.rounds) rounds)")

    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "spool-postgres-bench-\(UInt32.random(in: 0...UInt32.max))"
    ).path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }

    var postgres: [Double] = []
    var files: [Double] = []
    var strict: [Double] = []
    for round in 0..<options.rounds {
      // Interleaved: PostgreSQL, then the file journal, in each round.
      let journals = PostgresJournalDirectory<String, Counter.State, Counter.Action>(node: node)
      postgres.append(
        try await measureProducers(
          producers: options.producers, actions: options.actions, window: options.window
        ) { producer in
          let recovery = try await journals.take(
            "r\(round)-p\(producer)", initialState: Counter.State()
          ) { Counter() }
          let store = Store(initialState: recovery.state, instrumentation: recovery.recorder) {
            Counter()
          }
          let recorder = recovery.recorder
          return (store, { try await recorder.waitUntilDurable() })
        })
      files.append(
        try await measureProducers(
          producers: options.producers, actions: options.actions, window: options.window
        ) { producer in
          let recorder = try ActionJournal<Counter.Action>.recording(
            to: "\(folder)/r\(round)-p\(producer)")
          let store = Store(initialState: Counter.State(), instrumentation: recorder) {
            Counter()
          }
          return (store, { try await recorder.waitUntilDurable() })
        })
      strict.append(
        try await measureProducers(
          producers: options.producers, actions: 200, window: 1
        ) { producer in
          let recovery = try await journals.take(
            "s\(round)-p\(producer)", initialState: Counter.State()
          ) { Counter() }
          let store = Store(initialState: recovery.state, instrumentation: recovery.recorder) {
            Counter()
          }
          let recorder = recovery.recorder
          return (store, { try await recorder.waitUntilDurable() })
        })
      print(
        "  round \(round + 1): PostgreSQL \(Int(postgres[round])), file journal "
          + "\(Int(files[round])), PostgreSQL acknowledging each action \(Int(strict[round]))")
    }
    let commits = node.commits
    print(
      "PostgreSQL: \(Int(median(postgres))) actions/s; file journal: \(Int(median(files))) "
        + "actions/s; ratio \(String(format: "%.2f", median(postgres) / median(files))); "
        + "acknowledging each action (window 1): \(Int(median(strict))) actions/s; "
        + "commits so far: \(commits)")

    // Take-over: an entity with a snapshot and `replay` rows after it, left by a node that
    // dies (its connections close), taken by another node.
    var takeOvers: [Double] = []
    for round in 0..<options.rounds {
      var first = configuration
      first.nodeAddress = "bench-owner"
      let owner = try await PostgresJournalNode.connect(first)
      let journals = PostgresJournalDirectory<String, Counter.State, Counter.Action>(node: owner)
      let entity = "takeover-\(round)"
      let store = try await journals.makeStore(for: entity, initialState: Counter.State()) {
        Counter()
      }
      for value in 0..<100 { store.enqueue(.add(value)) }
      await store.send(.add(0))
      await store.finish()
      try await journals.evict(entity, finalState: await store.state)
      let recovery = try await journals.take(entity, initialState: Counter.State()) { Counter() }
      let live = Store(initialState: recovery.state, instrumentation: recovery.recorder) {
        Counter()
      }
      for value in 0..<(options.replay - 1) { live.enqueue(.add(value)) }
      await live.send(.add(0))
      try await recovery.recorder.waitUntilDurable()
      let expected = await live.state
      await live.finish()
      await owner.close()

      var second = configuration
      second.nodeAddress = "bench-successor"
      let successor = try await PostgresJournalNode.connect(second)
      let successorJournals = PostgresJournalDirectory<String, Counter.State, Counter.Action>(
        node: successor)
      let clock = ContinuousClock()
      let start = clock.now
      let taken = try await successorJournals.take(entity, initialState: Counter.State()) {
        Counter()
      }
      let elapsed = (clock.now - start) / .milliseconds(1)
      guard taken.state == expected, taken.actions == options.replay else {
        throw BenchError(
          "take-over recovered \(taken.actions) rows to \(taken.state), expected "
            + "\(options.replay) rows to \(expected)")
      }
      takeOvers.append(elapsed)
      await successor.close()
    }
    print(
      "take-over (lease, epoch, snapshot, replay of \(options.replay) rows): median "
        + String(format: "%.1f", median(takeOvers)) + " ms, rounds "
        + takeOvers.map { String(format: "%.1f", $0) }.joined(separator: ", ") + " ms")

    await node.close()
    let admin = try await PostgresConnection.connect(
      configuration: .init(
        host: configuration.host, port: configuration.port, username: configuration.username,
        password: configuration.password, database: configuration.database, tls: .disable),
      id: 0, logger: configuration.logger)
    try await admin.query(
      PostgresQuery(unsafeSQL: "DROP SCHEMA \(schema) CASCADE"), logger: configuration.logger)
    try await admin.close()
  }
}

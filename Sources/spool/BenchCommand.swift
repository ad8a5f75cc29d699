import ArgumentParser
import SpoolWorkloads

struct Bench: AsyncParsableCommand {
  static let configuration = CommandConfiguration(abstract: "Run workloads (being built).")

  @Option(help: "Actions per measurement.")
  var actions = 2_000_000

  @Argument(help: "Measurements to run (all when none is named).")
  var only: [String] = []

  func run() async throws {
    let actions = self.actions
    let all: [(String, () async -> CounterMeasurement)] = [
      ("raw-loop", { await CounterWorkloads.rawLoop(actions: actions) }),
      ("plain-actor", { await CounterWorkloads.plainActor(actions: actions) }),
      ("task-per-action", { await CounterWorkloads.taskPerAction(actions: min(actions, 200_000)) }),
      ("locked-class", { await CounterWorkloads.lockedClass(actions: actions) }),
      ("spool-enqueue", { await CounterWorkloads.spoolEnqueue(actions: actions) }),
      ("spool-send", { await CounterWorkloads.spoolSend(actions: actions) }),
      ("spool-fan-in-4", { await CounterWorkloads.spoolFanIn(actions: actions, producers: 4) }),
    ]
    for (name, measure) in all where only.isEmpty || only.contains(name) {
      let row = await measure()
      print(row.name, String(format: "%.1f ns/action", row.nanosecondsPerAction))
    }
  }
}

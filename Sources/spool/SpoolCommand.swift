import ArgumentParser

@main
struct SpoolCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "spool",
    abstract: "Run Spool's high-volume workloads and read their latency reports.",
    subcommands: [Bench.self, Report.self, Compare.self],
    defaultSubcommand: Bench.self
  )
}

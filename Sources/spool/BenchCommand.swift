import ArgumentParser

struct Bench: AsyncParsableCommand {
  static let configuration = CommandConfiguration(abstract: "Run workloads (being built).")
  func run() async throws {}
}

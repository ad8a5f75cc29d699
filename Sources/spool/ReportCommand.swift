import ArgumentParser

struct Report: AsyncParsableCommand {
  static let configuration = CommandConfiguration(abstract: "Print a report (being built).")
  func run() async throws {}
}

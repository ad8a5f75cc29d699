import ArgumentParser

struct Compare: AsyncParsableCommand {
  static let configuration = CommandConfiguration(abstract: "Compare reports (being built).")
  func run() async throws {}
}

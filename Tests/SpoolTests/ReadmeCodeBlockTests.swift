import Foundation
import Testing

/// Every Swift code block of README.md is compiled: each one (its `import` lines aside) is
/// found, line for line, in a file that a build compiles, so that README cannot show code that
/// no longer builds. The package-manifest lines of "Install" are the one exception: they are
/// not a Swift file of their own.
@Suite struct ReadmeCodeBlockTests {
  static let root = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  /// The files the blocks are compiled in: this test target (the quick start and its test)
  /// and the Benchmarks package (the benchmark and metrics examples; CI builds it).
  static let compiledFiles = [
    "Tests/SpoolTests/ReadmeExampleTests.swift",
    "Benchmarks/Benchmarks/ReadmeExamples/ReadmeExamples.swift",
  ]

  static func codeBlocks(in text: String) -> [[String]] {
    var blocks: [[String]] = []
    var current: [String]?
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      if current == nil, line == "```swift" {
        current = []
      } else if current != nil, line == "```" {
        blocks.append(current!)
        current = nil
      } else {
        current?.append(String(line))
      }
    }
    return blocks
  }

  /// The lines that must be found: no imports, no blank lines at the ends, no indentation
  /// (the metrics example sits inside a function there).
  static func essential(_ lines: [String]) -> [String] {
    lines.filter { !$0.hasPrefix("import ") }
      .map { $0.trimmingCharacters(in: .whitespaces) }
      .drop { $0.isEmpty }.reversed().drop { $0.isEmpty }.reversed()
  }

  @Test func everySwiftBlockOfTheReadmeIsCompiled() throws {
    let readme = try String(
      contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
    let compiled = try Self.compiledFiles.map { path in
      try String(contentsOf: Self.root.appendingPathComponent(path), encoding: .utf8)
        .split(separator: "\n", omittingEmptySubsequences: false)
        .map { $0.trimmingCharacters(in: .whitespaces) }
    }
    let blocks = Self.codeBlocks(in: readme).map(Self.essential)
    #expect(blocks.count >= 4, "the quick start, its test, the benchmark, the metrics")
    for block in blocks where !(block.first?.hasPrefix(".package(") ?? false) {
      let found = compiled.contains { lines in
        lines.indices.contains { start in
          start + block.count <= lines.count
            && Array(lines[start..<(start + block.count)]) == block
        }
      }
      #expect(
        found, "README block not found in a compiled file:\n\(block.joined(separator: "\n"))")
    }
  }
}

import Foundation
import Testing

@testable import SpoolProfiling

@Suite struct AtomicFileTests {
  @Test func replacesTheFileAndLeavesNoTemporaryFile() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = try directory.write("old", to: "out.txt")
    try AtomicFile.write(Array("new".utf8), to: path)
    #expect(try String(contentsOfFile: path, encoding: .utf8) == "new")
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["out.txt"])
  }

  @Test func aMissingDirectoryIsAnErrorNamingThePath() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("absent/out.txt")
    #expect {
      try AtomicFile.write([1, 2, 3], to: path)
    } throws: { error in
      "\(error)".hasPrefix("\(path): create ") && "\(error)".contains("No such file")
    }
  }
}

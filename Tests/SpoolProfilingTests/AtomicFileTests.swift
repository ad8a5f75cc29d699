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

  @Test func createTakesTheFirstFreeNameAndReplacesNothing() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let taken = try directory.write("old", to: "a.txt")
    let path = try AtomicFile.create(
      Array("new".utf8), atFirstFreeOf: ["a.txt", "b.txt", "c.txt"].map(directory.file))
    #expect(path == directory.file("b.txt"))
    #expect(try String(contentsOfFile: taken, encoding: .utf8) == "old")
    #expect(try String(contentsOfFile: path, encoding: .utf8) == "new")
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        == ["a.txt", "b.txt"])
  }

  @Test func createWithEveryNameTakenFailsAndLeavesNothing() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = try directory.write("old", to: "a.txt")
    #expect {
      _ = try AtomicFile.create([1], atFirstFreeOf: [path])
    } throws: { error in
      "\(error)".hasPrefix("\(path): link failed: File exists")
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["a.txt"])
    #expect(try String(contentsOfFile: path, encoding: .utf8) == "old")
  }
}

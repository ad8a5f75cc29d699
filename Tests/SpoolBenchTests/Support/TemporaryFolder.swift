import Foundation

/// A fresh folder under the system's temporary folder, removed by `remove()`.
struct TemporaryFolder {
  let path: String

  init() throws {
    path = NSTemporaryDirectory() + "spool-bench-tests-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  }

  /// The names of the files in `folder` (below this one), sorted; empty when it is missing.
  func files(in folder: String = "") -> [String] {
    let full = folder.isEmpty ? path : "\(path)/\(folder)"
    return ((try? FileManager.default.contentsOfDirectory(atPath: full)) ?? []).sorted()
  }

  func remove() {
    try? FileManager.default.removeItem(atPath: path)
  }
}

import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The folder `spool bench` writes its reports to, one JSON file per workload, and how it
/// names them.
///
/// Two namings:
/// - ``Naming-swift.enum/timestamped`` (the default, `spool-reports/`):
///   `<workload>-<yyyyMMdd'T'HHmmss'Z'>.json`, from the report's date in UTC. A file is only
///   ever created, never replaced: when the name exists (a second run in the same second, the
///   same workload twice in a run), `-2`, `-3`, … is appended to the stem.
/// - ``Naming-swift.enum/reference`` (`spool bench --reference`, `Profiles/`):
///   `<workload>.json`, stable names that replace the committed reference reports on purpose.
///
/// Either way each file is written atomically (``AtomicFile``): a reader, or a crash, never
/// leaves half a report under the final name.
///
/// ```swift
/// let folder = ReportFolder(path: "spool-reports", naming: .timestamped)
/// try folder.prepare()  // before the run: an unwritable folder fails early
/// let paths = try folder.write(report)  // ["spool-reports/counter-20261123T171502Z.json"]
/// ```
package struct ReportFolder: Sendable, Equatable {
  /// How the files are named.
  package enum Naming: Sendable, Equatable {
    /// `<workload>-<UTC timestamp>.json`, created exclusively.
    case timestamped
    /// `<workload>.json`, replaced.
    case reference
  }

  /// The folder `spool bench` writes to by default, relative to the current directory.
  package static let defaultPath = "spool-reports"
  /// The folder of the committed reference reports, relative to the repository's root.
  package static let referencePath = "Profiles"
  /// The most files of one workload and second: `-2` … `-999` after the first.
  static let maximumSuffix = 999

  /// The folder, as given.
  package var path: String
  /// How the files are named.
  package var naming: Naming

  /// A folder at `path` whose files are named by `naming`.
  ///
  /// ```swift
  /// let folder = ReportFolder(path: ReportFolder.referencePath, naming: .reference)
  /// ```
  package init(path: String, naming: Naming) {
    self.path = path
    self.naming = naming
  }

  /// Creates the folder (and its parents) if it does not exist, and checks that files can be
  /// created in it.
  ///
  /// - Throws: ``ReportFileError`` naming the folder: `mkdir`, `stat` (not a folder) or
  ///   `create a file in the folder` with its errno.
  ///
  /// ```swift
  /// try ReportFolder(path: "out", naming: .timestamped).prepare()
  /// ```
  package func prepare() throws(ReportFileError) {
    func fail(_ operation: String, _ code: Int32) -> ReportFileError {
      ReportFileError(path: path, problem: .system(operation: operation, errno: code))
    }
    var prefix = path.hasPrefix("/") ? "/" : ""
    let components = path.split(separator: "/")
    for (index, component) in components.enumerated() {
      prefix += component
      if mkdir(prefix, 0o755) != 0, errno != EEXIST {
        throw fail(index == components.count - 1 ? "mkdir" : "mkdir \(prefix)", errno)
      }
      prefix += "/"
    }
    var status = stat()
    guard stat(path, &status) == 0 else { throw fail("stat", errno) }
    guard status.st_mode & S_IFMT == S_IFDIR else { throw fail("stat", ENOTDIR) }
    // A file created and removed: `access` would pass for root where creating still fails (a
    // read-only sysfs, an LSM), and the workloads must not run only to fail at the end.
    let probe = file(".spool-write-check-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    let descriptor = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { throw fail("create a file in the folder", errno) }
    close(descriptor)
    unlink(probe)
  }

  /// Writes one report per workload of `report` (each with the report's environment) and
  /// returns their paths, in the order of the workloads.
  ///
  /// - Throws: ``ReportFileError`` naming the folder (see ``prepare()``) or the file. Files
  ///   written before the failure stay; none is left half-written.
  ///
  /// ```swift
  /// let paths = try ReportFolder(path: "out", naming: .timestamped).write(report)
  /// ```
  package func write(_ report: Report) throws(ReportFileError) -> [String] {
    try prepare()
    var paths: [String] = []
    for workload in report.workloads {
      let bytes = Report(environment: report.environment, workloads: [workload])
        .rendered(as: .json)
      switch naming {
      case .reference:
        let file = self.file("\(workload.name).json")
        try AtomicFile.write(bytes, to: file)
        paths.append(file)
      case .timestamped:
        let stem = "\(workload.name)-\(Self.timestamp(report.environment.date))"
        let candidates = (1...Self.maximumSuffix).lazy.map { suffix in
          self.file(suffix == 1 ? "\(stem).json" : "\(stem)-\(suffix).json")
        }
        paths.append(try AtomicFile.create(bytes, atFirstFreeOf: candidates))
      }
    }
    return paths
  }

  /// `date` in UTC as ISO 8601's basic format, to the second: `20261123T171502Z`.
  static func timestamp(_ date: Date) -> String {
    var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
    var parts = tm()
    gmtime_r(&seconds, &parts)
    return String(
      format: "%04d%02d%02dT%02d%02d%02dZ", parts.tm_year + 1900, parts.tm_mon + 1,
      parts.tm_mday, parts.tm_hour, parts.tm_min, parts.tm_sec)
  }

  private func file(_ name: String) -> String {
    path.hasSuffix("/") ? path + name : "\(path)/\(name)"
  }
}

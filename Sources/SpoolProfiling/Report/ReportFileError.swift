#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A report file that could not be read or written: which file, and what was wrong with it.
///
/// Its `description` is one line that names the file and the problem, as the `spool` commands
/// print it: `BASE.json: truncated or malformed JSON (unexpected end of file)`.
///
/// ```swift
/// do {
///   let report = try Report.load(from: "Profiles/counter.json")
/// } catch {
///   print("error: \(error)")  // error: Profiles/counter.json: no such file
/// }
/// ```
public struct ReportFileError: Error, Sendable, Equatable, CustomStringConvertible {
  /// What was wrong.
  public enum Problem: Sendable, Equatable {
    /// The path does not exist.
    case notFound
    /// The path is a directory.
    case isDirectory
    /// The path is not a regular file (a socket, a device, …).
    case notRegularFile
    /// The file has no bytes.
    case empty
    /// The file is larger than ``Report/maximumFileSize``.
    case tooLarge(bytes: Int)
    /// The file does not start like a JSON object (binary garbage, an array, text).
    case notJSON(firstByte: UInt8)
    /// The file is not valid JSON (often a truncated write).
    case malformedJSON(String)
    /// The file is JSON but not a Spool report.
    case notAReport(String)
    /// The report has a schema version this build does not read.
    case unsupportedSchemaVersion(Int)
    /// The report holds a value no run can have produced (a negative count, a NaN or infinite
    /// figure, percentiles out of order); the text names the field.
    case impossibleValue(String)
    /// A system call failed.
    case system(operation: String, errno: Int32)
  }

  /// The file's path, as given.
  public var path: String
  /// What was wrong.
  public var problem: Problem

  /// Creates an error for `path`.
  ///
  /// ```swift
  /// let error = ReportFileError(path: "a.json", problem: .empty)
  /// ```
  public init(path: String, problem: Problem) {
    self.path = path
    self.problem = problem
  }

  /// `PATH: problem`, on one line.
  public var description: String {
    "\(path): \(problem.text)"
  }
}

extension ReportFileError.Problem {
  var text: String {
    switch self {
    case .notFound: "no such file"
    case .isDirectory: "is a directory, not a report file"
    case .notRegularFile: "is not a regular file"
    case .empty: "is empty, not a report"
    case .tooLarge(let bytes):
      "is too large for a report (\(bytes) bytes; the limit is \(Report.maximumFileSize))"
    case .notJSON(let byte):
      "is not a Spool report (it starts with byte 0x\(String(byte, radix: 16)), not '{')"
    case .malformedJSON(let detail): "truncated or malformed JSON (\(detail))"
    case .notAReport(let detail): "is not a Spool report (\(detail))"
    case .impossibleValue(let detail): "has an impossible value: \(detail)"
    case .unsupportedSchemaVersion(let version):
      "has schema version \(version); this spool reads version \(Report.currentSchemaVersion)"
    case .system(let operation, let code):
      "\(operation) failed: \(String(cString: strerror(code))) (errno \(code))"
    }
  }
}

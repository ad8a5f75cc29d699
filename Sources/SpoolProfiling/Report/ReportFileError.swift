#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A report file that could not be read or written: which file, and what was wrong with it.
///
/// Its `description` is one line that names the file and the problem, as the `spool` commands
/// print it: `BASE.json: truncated or malformed JSON (unexpected end of file)`. Switch over
/// ``code`` to tell problems apart.
///
/// ```swift
/// do {
///   let report = try Report.load(from: "Profiles/counter.json")
/// } catch let error as ReportFileError where error.code == .notFound {
///   print("no baseline yet")
/// } catch {
///   print("error: \(error)")  // error: Profiles/counter.json: is empty, not a report
/// }
/// ```
public struct ReportFileError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The kind of problem, to switch over: an extensible set of values (new ones may be added).
  ///
  /// ```swift
  /// switch error.code {
  /// case .notFound, .empty: print("no report at \(error.path)")
  /// case .system: print("could not read:", error.systemError as Any)
  /// default: print(error)
  /// }
  /// ```
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    private enum Kind: String, Hashable, Sendable {
      case notFound, isDirectory, notRegularFile, empty, tooLarge, notJSON, malformedJSON
      case notAReport, unsupportedSchemaVersion, impossibleValue, system
    }

    private let kind: Kind

    private init(_ kind: Kind) { self.kind = kind }

    /// The code's name, as written here: `notFound`.
    public var description: String { kind.rawValue }

    /// The path does not exist.
    public static let notFound = Code(.notFound)
    /// The path is a directory.
    public static let isDirectory = Code(.isDirectory)
    /// The path is not a regular file (a socket, a device, …).
    public static let notRegularFile = Code(.notRegularFile)
    /// The file has no bytes, or only blanks.
    public static let empty = Code(.empty)
    /// The file is larger than ``Report/maximumFileSize``.
    public static let tooLarge = Code(.tooLarge)
    /// The file does not start like a JSON object (binary garbage, an array, text).
    public static let notJSON = Code(.notJSON)
    /// The file is not valid JSON (often a truncated write).
    public static let malformedJSON = Code(.malformedJSON)
    /// The file is JSON but not a Spool report.
    public static let notAReport = Code(.notAReport)
    /// The report has a schema version this build does not read.
    public static let unsupportedSchemaVersion = Code(.unsupportedSchemaVersion)
    /// The report holds a value no run can have produced (a negative count, a NaN or infinite
    /// figure, percentiles out of order); the description names the field.
    public static let impossibleValue = Code(.impossibleValue)
    /// A system call failed: see ``ReportFileError/systemError``.
    public static let system = Code(.system)
  }

  /// What was wrong, with its details: how errors are made inside SpoolProfiling.
  enum Problem: Sendable, Equatable {
    case notFound
    case isDirectory
    case notRegularFile
    case empty
    case tooLarge(bytes: Int)
    case notJSON(firstByte: UInt8)
    case malformedJSON(String)
    case notAReport(String)
    case unsupportedSchemaVersion(Int)
    case impossibleValue(String)
    case system(operation: String, errno: Int32)
  }

  /// The file's path, as given.
  public var path: String
  /// What was wrong, with its details.
  var problem: Problem

  init(path: String, problem: Problem) {
    self.path = path
    self.problem = problem
  }

  /// What kind of problem it is.
  public var code: Code {
    switch problem {
    case .notFound: .notFound
    case .isDirectory: .isDirectory
    case .notRegularFile: .notRegularFile
    case .empty: .empty
    case .tooLarge: .tooLarge
    case .notJSON: .notJSON
    case .malformedJSON: .malformedJSON
    case .notAReport: .notAReport
    case .unsupportedSchemaVersion: .unsupportedSchemaVersion
    case .impossibleValue: .impossibleValue
    case .system: .system
    }
  }

  /// The system call that failed and its `errno`, for ``Code/system``; `nil` otherwise.
  ///
  /// ```swift
  /// if let (operation, code) = error.systemError, code == ENOSPC { print("disk full:", operation) }
  /// ```
  public var systemError: (operation: String, errno: Int32)? {
    guard case .system(let operation, let code) = problem else { return nil }
    return (operation, code)
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

import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

extension Report {
  /// The largest report file Spool reads: 64 MiB. Reports are kilobytes to a few megabytes
  /// (the trace sample is bounded); anything bigger is not one of ours.
  public static let maximumFileSize = 64 << 20

  /// Reads a JSON report from `path`.
  ///
  /// Checks before it reads: the path must be a regular, non-empty file of at most
  /// ``maximumFileSize`` bytes whose first non-blank byte is `{`. Only then is the file read
  /// (once, into a buffer of its size), its ``schemaVersion`` checked, and the report decoded.
  ///
  /// - Throws: ``ReportFileError`` naming `path` and the problem.
  ///
  /// ```swift
  /// let report = try Report.load(from: "Profiles/counter.json")
  /// ```
  public static func load(from path: String) throws(ReportFileError) -> Report {
    let bytes = try ReportFileReader.read(path)
    return try decode(bytes, path: path)
  }

  /// Decodes a report from JSON bytes; `path` only names the source in errors.
  ///
  /// - Throws: ``ReportFileError`` naming `path` and the problem.
  ///
  /// ```swift
  /// let report = try Report.decode(Array(json.utf8), path: "<stdin>")
  /// ```
  public static func decode(_ bytes: [UInt8], path: String) throws(ReportFileError) -> Report {
    func fail(_ problem: ReportFileError.Problem) -> ReportFileError {
      ReportFileError(path: path, problem: problem)
    }
    guard let first = bytes.first(where: { !Self.isBlank($0) }) else { throw fail(.empty) }
    guard first == UInt8(ascii: "{") else { throw fail(.notJSON(firstByte: first)) }
    // The bytes themselves, not a copy (a report may be 64 MiB): `data` does not outlive the
    // closure, and the decoded report copies what it keeps.
    let decoded = bytes.withUnsafeBytes { raw in
      let data = Data(
        bytesNoCopy: UnsafeMutableRawPointer(mutating: raw.baseAddress!), count: raw.count,
        deallocator: .none)
      return Result { () throws(ReportFileError) -> Report in
        try decode(data, bytes: raw, path: path)
      }
    }
    return try decoded.get()
  }

  /// ``decode(_:path:)`` once the first byte is known to open an object.
  private static func decode(
    _ data: Data, bytes: UnsafeRawBufferPointer, path: String
  ) throws(ReportFileError) -> Report {
    func fail(_ problem: ReportFileError.Problem) -> ReportFileError {
      ReportFileError(path: path, problem: problem)
    }
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    let probe: SchemaProbe
    do {
      probe = try decoder.decode(SchemaProbe.self, from: data)
    } catch {
      throw fail(.malformedJSON(Self.describe(error)))
    }
    let version: Int
    switch probe.schemaVersion {
    case .missing: throw fail(.notAReport("no schemaVersion field"))
    case .notAnInteger(let found):
      throw fail(.notAReport("schemaVersion is \(found), not an integer"))
    case .integer(let value): version = value
    }
    guard version == currentSchemaVersion else { throw fail(.unsupportedSchemaVersion(version)) }
    let report: Report
    do {
      report = try decoder.decode(Report.self, from: data)
    } catch {
      // The document parsed (the probe read it), so a failure without a field is a number
      // that its field cannot hold, which the decoder does not name: find it.
      if case .dataCorrupted(let context)? = error as? DecodingError, context.codingPath.isEmpty,
        let problem = NumberFieldCheck.firstProblem(in: bytes)
      {
        throw fail(.impossibleValue(problem))
      }
      throw fail(.notAReport(Self.describe(error)))
    }
    if let problem = report.impossibleValue() { throw fail(.impossibleValue(problem)) }
    return report
  }

  /// The schema version alone, read before the rest so that a report of another version is
  /// named as such; a version of the wrong type is named too, not taken for broken JSON.
  private struct SchemaProbe: Decodable {
    enum Version {
      case missing
      case integer(Int)
      /// What was there instead, in words (`a string ("1")`).
      case notAnInteger(String)
    }

    var schemaVersion: Version

    private enum CodingKeys: String, CodingKey { case schemaVersion }

    init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      guard container.contains(.schemaVersion) else {
        schemaVersion = .missing
        return
      }
      if let value = try? container.decode(Int.self, forKey: .schemaVersion) {
        schemaVersion = .integer(value)
      } else if let text = try? container.decode(String.self, forKey: .schemaVersion) {
        schemaVersion = .notAnInteger("a string (\"\(text.prefix(20))\")")
      } else if let number = try? container.decode(Double.self, forKey: .schemaVersion) {
        schemaVersion = .notAnInteger("\(number)")
      } else if (try? container.decodeNil(forKey: .schemaVersion)) == true {
        schemaVersion = .notAnInteger("null")
      } else {
        schemaVersion = .notAnInteger("neither a number nor a string")
      }
    }
  }

  private static func isBlank(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
  }

  /// One line, at most 160 characters, saying what the decoder disliked and where.
  private static func describe(_ error: any Error) -> String {
    let text: String
    switch error as? DecodingError {
    case .keyNotFound(let key, let context)?:
      text = "missing field '\(path(context.codingPath + [key]))'"
    case .typeMismatch(_, let context)?, .valueNotFound(_, let context)?:
      text = "field '\(path(context.codingPath))': \(context.debugDescription)"
    case .dataCorrupted(let context)?:
      let underlying = context.underlyingError.map { "\($0)" } ?? ""
      text = context.codingPath.isEmpty
        ? "\(context.debugDescription) \(underlying)"
        : "field '\(path(context.codingPath))': \(context.debugDescription)"
    default:
      text = "\(error)"
    }
    let oneLine = text.split(whereSeparator: \.isNewline).joined(separator: " ")
      .trimmingCharacters(in: .whitespaces)
    return oneLine.count > 160 ? String(oneLine.prefix(157)) + "..." : oneLine
  }

  private static func path(_ codingPath: [any CodingKey]) -> String {
    codingPath.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }
      .joined().drop { $0 == "." }.description
  }
}

/// Reads a report file with the checks ``Report/load(from:)`` promises, through POSIX calls.
enum ReportFileReader {
  static func read(_ path: String) throws(ReportFileError) -> [UInt8] {
    func fail(_ problem: ReportFileError.Problem) -> ReportFileError {
      ReportFileError(path: path, problem: problem)
    }
    // O_NONBLOCK: a FIFO must not block the open; regular files ignore it.
    let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    guard descriptor >= 0 else {
      let code = errno
      throw fail(code == ENOENT ? .notFound : .system(operation: "open", errno: code))
    }
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else {
      throw fail(.system(operation: "fstat", errno: errno))
    }
    switch status.st_mode & S_IFMT {
    case S_IFREG: break
    case S_IFDIR: throw fail(.isDirectory)
    default: throw fail(.notRegularFile)
    }
    // A size of 0 is not trusted: files of /proc and /sys report 0 and have contents, which
    // are then named for what they are (not JSON), not called empty.
    let size = Int(status.st_size)
    // Look at the first bytes before the size: garbage is reported as garbage, however large.
    let head = try readUpTo(size > 0 ? Swift.min(size, 4096) : 4096, from: descriptor, path: path)
    guard !head.isEmpty else { throw fail(.empty) }
    if let first = head.first(where: { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }),
      first != UInt8(ascii: "{")
    {
      throw fail(.notJSON(firstByte: first))
    }
    guard size <= Report.maximumFileSize else { throw fail(.tooLarge(bytes: size)) }
    // The file may grow between fstat and read; never read past the limit. Read into the one
    // buffer (sized for the file), so that a large report is held once, not twice.
    var bytes = head
    bytes.reserveCapacity(Swift.max(size, head.count) + 1)
    try readUpTo(Report.maximumFileSize + 1, into: &bytes, from: descriptor, path: path)
    guard bytes.count <= Report.maximumFileSize else { throw fail(.tooLarge(bytes: bytes.count)) }
    guard !bytes.isEmpty else { throw fail(.empty) }
    return bytes
  }

  /// Reads until `limit` bytes or end of file, retrying `EINTR`.
  private static func readUpTo(
    _ limit: Int, from descriptor: Int32, path: String
  ) throws(ReportFileError) -> [UInt8] {
    var buffer: [UInt8] = []
    try readUpTo(limit, into: &buffer, from: descriptor, path: path)
    return buffer
  }

  /// Appends to `buffer` until it holds `limit` bytes or the file ends, retrying `EINTR`.
  private static func readUpTo(
    _ limit: Int, into buffer: inout [UInt8], from descriptor: Int32, path: String
  ) throws(ReportFileError) {
    var chunk = [UInt8](repeating: 0, count: Swift.min(Swift.max(limit, 0), 1 << 20))
    while buffer.count < limit {
      let wanted = Swift.min(chunk.count, limit - buffer.count)
      let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, wanted) }
      if count < 0 {
        if errno == EINTR { continue }
        let code = errno
        throw ReportFileError(
          path: path,
          problem: code == EISDIR ? .isDirectory : .system(operation: "read", errno: code))
      }
      if count == 0 { break }
      buffer.append(contentsOf: chunk[..<count])
    }
  }
}

/// Finds the number of a report that its field cannot hold (negative, fractional or too large
/// for an integer field; beyond a `Double`'s range for any), for the error the decoder gives
/// without naming a field. Runs only on that failure path, over a document that parsed.
enum NumberFieldCheck {
  /// The report's `UInt64` fields, by key.
  static let unsignedFields: Set<String> = [
    "p50Nanoseconds", "p90Nanoseconds", "p99Nanoseconds", "p999Nanoseconds", "maxNanoseconds",
    "nanoseconds", "startNanoseconds", "durationNanoseconds", "queueWaitP99Nanoseconds",
    "reduceP99Nanoseconds",
  ]
  /// The report's `Int` fields, by key (all of them counts or sizes).
  static let signedFields: Set<String> = [
    "count", "actions", "peakRSSBytes", "started", "finished", "cancelled", "failed",
    "residentBytes", "liveEffects", "cores", "allowedCores", "warmUpSamples", "windowSamples",
  ]

  private enum Frame {
    case object(key: String?)
    case array(index: Int)
  }

  /// `workloads[0].trace[1].startNanoseconds is -1; it must be a whole number from 0 to …`.
  static func firstProblem(in bytes: UnsafeRawBufferPointer) -> String? {
    var stack: [Frame] = []
    var expectsKey = false
    var index = 0
    func path() -> String {
      var text = ""
      for frame in stack {
        switch frame {
        case .object(let key?): text += text.isEmpty ? key : ".\(key)"
        case .object(nil): break
        case .array(let index): text += "[\(index)]"
        }
      }
      return text
    }
    while index < bytes.count {
      let byte = bytes[index]
      switch byte {
      case UInt8(ascii: "{"):
        stack.append(.object(key: nil))
        expectsKey = true
        index += 1
      case UInt8(ascii: "["):
        stack.append(.array(index: 0))
        index += 1
      case UInt8(ascii: "}"), UInt8(ascii: "]"):
        _ = stack.popLast()
        index += 1
      case UInt8(ascii: ","):
        if case .array(let position)? = stack.last {
          stack[stack.count - 1] = .array(index: position + 1)
        } else {
          expectsKey = true
        }
        index += 1
      case UInt8(ascii: "\""):
        var end = index + 1
        while end < bytes.count && bytes[end] != UInt8(ascii: "\"") {
          end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1
        }
        if expectsKey, case .object = stack.last {
          let characters = bytes[(index + 1)..<Swift.min(end, bytes.count)]
          let key = String(decoding: UnsafeRawBufferPointer(rebasing: characters), as: UTF8.self)
          stack[stack.count - 1] = .object(key: key)
          expectsKey = false
        }
        index = end + 1
      case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
        var end = index
        while end < bytes.count, "+-0123456789.eE".utf8.contains(bytes[end]) { end += 1 }
        let token = String(decoding: bytes[index..<end], as: UTF8.self)
        if case .object(let key?)? = stack.last, let problem = problem(token, key: key) {
          return "\(path()) is \(token); \(problem)"
        }
        index = end
      default:
        index += 1
      }
    }
    return nil
  }

  /// What is wrong with `token` as the value of `key`, or `nil`.
  private static func problem(_ token: String, key: String) -> String? {
    let value = Double(token) ?? .nan
    let maximum: (Double, String)?
    if unsignedFields.contains(key) {
      maximum = (0x1p64, "\(UInt64.max)")
    } else if signedFields.contains(key) {
      maximum = (0x1p63, "\(Int.max)")
    } else {
      maximum = nil
    }
    guard let (limit, limitText) = maximum else {
      return value.isFinite ? nil : "a measured figure must be finite"
    }
    guard value.isFinite, value >= 0, value < limit, value == value.rounded() else {
      return "it must be a whole number from 0 to \(limitText)"
    }
    return nil
  }
}

#if canImport(Glibc)
  import Glibc
#endif

/// The fixed default of a fuzz run and the environment variables that override it:
/// `SPOOL_FUZZ_SEED` (decimal or 0x-hexadecimal) to replay or vary a run,
/// `SPOOL_FUZZ_ITERATIONS` for a longer one.
struct FuzzConfiguration: CustomStringConvertible {
  var seed: UInt64
  var iterations: Int

  init(defaultSeed: UInt64, defaultIterations: Int) {
    seed = Self.environment("SPOOL_FUZZ_SEED").map(Self.parseSeed) ?? defaultSeed
    iterations = Self.environment("SPOOL_FUZZ_ITERATIONS").map { raw in
      guard let value = Int(raw), value > 0 else {
        preconditionFailure("SPOOL_FUZZ_ITERATIONS=\(raw): expected a positive integer")
      }
      return value
    } ?? defaultIterations
  }

  var description: String { "SPOOL_FUZZ_SEED=\(seed) SPOOL_FUZZ_ITERATIONS=\(iterations)" }

  private static func environment(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }
  }

  private static func parseSeed(_ raw: String) -> UInt64 {
    if raw.hasPrefix("0x"), let value = UInt64(raw.dropFirst(2), radix: 16) { return value }
    guard let value = UInt64(raw) else {
      preconditionFailure("SPOOL_FUZZ_SEED=\(raw): expected a decimal or 0x-hexadecimal seed")
    }
    return value
  }
}

/// A small, fast, seeded generator (SplitMix64), so that a fuzz run replays exactly.
struct SeededGenerator: RandomNumberGenerator {
  private var state: UInt64

  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// A value in `0..<bound`.
  mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

  /// `true` once in `odds` draws, on average.
  mutating func oneIn(_ odds: Int) -> Bool { below(odds) == 0 }
}

/// A JSON document as the fuzzer edits it: objects keep their keys in order and may repeat one,
/// numbers keep their text (so `1e400` or `18446744073709551616` can be written), and `raw`
/// is written as is (deep nesting, invalid tokens such as `NaN`).
enum FuzzJSON {
  /// A member of an object.
  struct Member {
    var key: String
    var value: FuzzJSON
  }

  case object([Member])
  case array([FuzzJSON])
  case string(String)
  case number(String)
  case bool(Bool)
  case null
  case raw(String)

  /// The document's text, compact.
  var text: String {
    var output = ""
    write(to: &output)
    return output
  }

  private func write(to output: inout String) {
    switch self {
    case .object(let members):
      output += "{"
      for (index, member) in members.enumerated() {
        if index > 0 { output += "," }
        Self.writeString(member.key, to: &output)
        output += ":"
        member.value.write(to: &output)
      }
      output += "}"
    case .array(let elements):
      output += "["
      for (index, element) in elements.enumerated() {
        if index > 0 { output += "," }
        element.write(to: &output)
      }
      output += "]"
    case .string(let string): Self.writeString(string, to: &output)
    case .number(let text), .raw(let text): output += text
    case .bool(let value): output += value ? "true" : "false"
    case .null: output += "null"
    }
  }

  private static func writeString(_ string: String, to output: inout String) {
    output += "\""
    for scalar in string.unicodeScalars {
      switch scalar {
      case "\"": output += "\\\""
      case "\\": output += "\\\\"
      case "\n": output += "\\n"
      case _ where scalar.value < 0x20:
        output += "\\u00" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
      default: output.unicodeScalars.append(scalar)
      }
    }
    output += "\""
  }

  /// The number of values in the document (each one a place a mutation can hit).
  var nodeCount: Int {
    switch self {
    case .object(let members): 1 + members.reduce(0) { $0 + $1.value.nodeCount }
    case .array(let elements): 1 + elements.reduce(0) { $0 + $1.nodeCount }
    default: 1
    }
  }

  /// The pre-order positions of the numbers in the document.
  var numberPositions: [Int] {
    var positions: [Int] = []
    var position = 0
    collectNumbers(into: &positions, position: &position)
    return positions
  }

  private func collectNumbers(into positions: inout [Int], position: inout Int) {
    switch self {
    case .number: positions.append(position)
    default: break
    }
    position += 1
    switch self {
    case .object(let members):
      for member in members { member.value.collectNumbers(into: &positions, position: &position) }
    case .array(let elements):
      for element in elements { element.collectNumbers(into: &positions, position: &position) }
    default: break
    }
  }

  /// The pre-order positions of the numbers in the document, with the path of each as the
  /// report reader names fields (`workloads[0].actionCases[1].count`).
  var numberPaths: [(position: Int, path: String)] {
    var found: [(position: Int, path: String)] = []
    var position = 0
    collectNumberPaths(into: &found, position: &position, path: "")
    return found
  }

  private func collectNumberPaths(
    into found: inout [(position: Int, path: String)], position: inout Int, path: String
  ) {
    if case .number = self { found.append((position, path)) }
    position += 1
    switch self {
    case .object(let members):
      for member in members {
        let inner = path.isEmpty ? member.key : "\(path).\(member.key)"
        member.value.collectNumberPaths(into: &found, position: &position, path: inner)
      }
    case .array(let elements):
      for (index, element) in elements.enumerated() {
        element.collectNumberPaths(into: &found, position: &position, path: "\(path)[\(index)]")
      }
    default: break
    }
  }

  /// The document with the value at pre-order position `target` replaced by `transform(it)`.
  func replacing(node target: Int, with transform: (FuzzJSON) -> FuzzJSON) -> FuzzJSON {
    var position = 0
    return replacing(node: target, position: &position, transform)
  }

  private func replacing(
    node target: Int, position: inout Int, _ transform: (FuzzJSON) -> FuzzJSON
  ) -> FuzzJSON {
    if position == target {
      position += nodeCount
      return transform(self)
    }
    position += 1
    switch self {
    case .object(let members):
      return .object(
        members.map { member in
          let value = member.value.replacing(node: target, position: &position, transform)
          return Member(key: member.key, value: value)
        })
    case .array(let elements):
      return .array(elements.map { $0.replacing(node: target, position: &position, transform) })
    default:
      return self
    }
  }
}

/// Parses the well-formed JSON that Spool's own writer produced (the fuzzer's starting
/// points); not a general parser, and not the code under test.
struct FuzzJSONParser {
  private let bytes: [UInt8]
  private var index = 0

  static func parse(_ bytes: [UInt8]) -> FuzzJSON {
    var parser = FuzzJSONParser(bytes: bytes)
    return parser.value()
  }

  private init(bytes: [UInt8]) { self.bytes = bytes }

  private mutating func skipBlanks() {
    while index < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 }
  }

  private mutating func value() -> FuzzJSON {
    skipBlanks()
    switch bytes[index] {
    case UInt8(ascii: "{"):
      index += 1
      var members: [FuzzJSON.Member] = []
      skipBlanks()
      if bytes[index] == UInt8(ascii: "}") {
        index += 1
        return .object(members)
      }
      while true {
        skipBlanks()
        let key = string()
        skipBlanks()
        index += 1  // ':'
        members.append(FuzzJSON.Member(key: key, value: value()))
        skipBlanks()
        let separator = bytes[index]
        index += 1
        if separator == UInt8(ascii: "}") { return .object(members) }
      }
    case UInt8(ascii: "["):
      index += 1
      var elements: [FuzzJSON] = []
      skipBlanks()
      if bytes[index] == UInt8(ascii: "]") {
        index += 1
        return .array(elements)
      }
      while true {
        elements.append(value())
        skipBlanks()
        let separator = bytes[index]
        index += 1
        if separator == UInt8(ascii: "]") { return .array(elements) }
      }
    case UInt8(ascii: "\""):
      return .string(string())
    case UInt8(ascii: "t"):
      index += 4
      return .bool(true)
    case UInt8(ascii: "f"):
      index += 5
      return .bool(false)
    case UInt8(ascii: "n"):
      index += 4
      return .null
    default:
      let start = index
      while index < bytes.count, !",]} \n\r\t".utf8.contains(bytes[index]) { index += 1 }
      return .number(String(decoding: bytes[start..<index], as: UTF8.self))
    }
  }

  /// A string without escapes other than `\"`, `\\` and `\/` (what Spool's writer emits).
  private mutating func string() -> String {
    index += 1
    var scalars: [UInt8] = []
    while bytes[index] != UInt8(ascii: "\"") {
      if bytes[index] == UInt8(ascii: "\\") { index += 1 }
      scalars.append(bytes[index])
      index += 1
    }
    index += 1
    return String(decoding: scalars, as: UTF8.self)
  }
}

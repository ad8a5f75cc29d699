/// Decodes `Decodable` values from a journal's binary encoding (see ``JournalValueTag``).
///
/// Every read is bounds-checked and every tag checked against what the type asks for, so a
/// malformed value is a `DecodingError`, never a crash. A container is scanned once when it is
/// opened (its entries' positions noted), then read in any order.
struct JournalValueDecoder: Decoder {
  /// The bytes of one encoded value, shared by the decoders of its parts.
  final class Input {
    let bytes: [UInt8]
    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func byte(at position: Int, _ path: [any CodingKey]) throws -> UInt8 {
      guard position < bytes.count else { throw Self.truncated(path) }
      return bytes[position]
    }

    /// Reads a varint at `position`; returns it and the position after it.
    func varint(at position: Int, _ path: [any CodingKey]) throws -> (UInt64, Int) {
      var value: UInt64 = 0
      var shift: UInt64 = 0
      var position = position
      while true {
        let byte = try self.byte(at: position, path)
        position += 1
        guard shift < 64 else { throw Self.corrupt("an over-long varint", path) }
        value |= UInt64(byte & 0x7F) << shift
        if byte & 0x80 == 0 { return (value, position) }
        shift += 7
      }
    }

    func fixed<T: FixedWidthInteger>(_: T.Type, at position: Int, _ path: [any CodingKey]) throws
      -> T
    {
      let size = MemoryLayout<T>.size
      guard position + size <= bytes.count else { throw Self.truncated(path) }
      var value = T.zero
      for index in 0..<size {
        value |= T(truncatingIfNeeded: bytes[position + index]) << (8 * index)
      }
      return value
    }

    /// Reads a length-prefixed UTF-8 string; returns it and the position after it.
    func string(at position: Int, _ path: [any CodingKey]) throws -> (String, Int) {
      let (length, start) = try varint(at: position, path)
      guard length <= UInt64(bytes.count - start) else { throw Self.truncated(path) }
      let end = start + Int(length)
      guard let string = String(validating: bytes[start..<end], as: UTF8.self) else {
        throw Self.corrupt("a string that is not UTF-8", path)
      }
      return (string, end)
    }

    /// The position after the value whose tag is at `position`.
    func skip(at position: Int, depth: Int = 0, _ path: [any CodingKey]) throws -> Int {
      guard depth < 256 else { throw Self.corrupt("containers nested over 256 deep", path) }
      let rawTag = try byte(at: position, path)
      guard let tag = JournalValueTag(rawValue: rawTag) else {
        throw Self.corrupt("an unknown value tag \(rawTag)", path)
      }
      let next = position + 1
      switch tag {
      case .null, .false, .true: return next
      case .signed, .unsigned: return try varint(at: next, path).1
      case .float:
        guard next + 4 <= bytes.count else { throw Self.truncated(path) }
        return next + 4
      case .double:
        guard next + 8 <= bytes.count else { throw Self.truncated(path) }
        return next + 8
      case .string: return try string(at: next, path).1
      case .map, .list:
        var cursor = next
        while try byte(at: cursor, path) != JournalValueTag.end.rawValue {
          if tag == .map { cursor = try string(at: cursor, path).1 }
          cursor = try skip(at: cursor, depth: depth + 1, path)
        }
        return cursor + 1
      case .end: throw Self.corrupt("an end tag where a value belongs", path)
      }
    }

    static func truncated(_ path: [any CodingKey]) -> DecodingError {
      .dataCorrupted(.init(codingPath: path, debugDescription: "the value ends early"))
    }

    static func corrupt(_ what: String, _ path: [any CodingKey]) -> DecodingError {
      .dataCorrupted(.init(codingPath: path, debugDescription: "found \(what)"))
    }
  }

  let input: Input
  /// Where the value's tag is.
  let position: Int
  let codingPath: [any CodingKey]
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  /// Decodes a `T` from `bytes`, which must hold exactly one value.
  static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
    let input = Input(bytes)
    let end = try input.skip(at: 0, [])
    guard end == bytes.count else {
      throw Input.corrupt("\(bytes.count - end) bytes after the value", [])
    }
    return try T(from: JournalValueDecoder(input: input, position: 0, codingPath: []))
  }

  func tag() throws -> JournalValueTag {
    let raw = try input.byte(at: position, codingPath)
    guard let tag = JournalValueTag(rawValue: raw) else {
      throw Input.corrupt("an unknown value tag \(raw)", codingPath)
    }
    return tag
  }

  func mismatch(_ type: Any.Type, found tag: JournalValueTag) -> DecodingError {
    .typeMismatch(
      type, .init(codingPath: codingPath, debugDescription: "expected \(type), found \(tag)"))
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    let found = try tag()
    guard found == .map else { throw mismatch([String: Any].self, found: found) }
    var entries: [(key: String, position: Int)] = []
    var cursor = position + 1
    while try input.byte(at: cursor, codingPath) != JournalValueTag.end.rawValue {
      let (key, valueStart) = try input.string(at: cursor, codingPath)
      entries.append((key, valueStart))
      cursor = try input.skip(at: valueStart, codingPath)
    }
    return KeyedDecodingContainer(
      KeyedContainer<Key>(decoder: self, entries: entries))
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    let found = try tag()
    guard found == .list else { throw mismatch([Any].self, found: found) }
    var elements: [Int] = []
    var cursor = position + 1
    while try input.byte(at: cursor, codingPath) != JournalValueTag.end.rawValue {
      elements.append(cursor)
      cursor = try input.skip(at: cursor, codingPath)
    }
    return UnkeyedContainer(decoder: self, elements: elements)
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer {
    SingleValueContainer(decoder: self)
  }

  // MARK: Primitives at this decoder's position

  func decodeNil() throws -> Bool { try tag() == .null }

  func decode(_: Bool.Type) throws -> Bool {
    switch try tag() {
    case .true: return true
    case .false: return false
    case let other: throw mismatch(Bool.self, found: other)
    }
  }

  func decode(_: String.Type) throws -> String {
    let found = try tag()
    guard found == .string else { throw mismatch(String.self, found: found) }
    return try input.string(at: position + 1, codingPath).0
  }

  func decode(_: Double.Type) throws -> Double {
    let found = try tag()
    guard found == .double else { throw mismatch(Double.self, found: found) }
    return Double(bitPattern: try input.fixed(UInt64.self, at: position + 1, codingPath))
  }

  func decode(_: Float.Type) throws -> Float {
    let found = try tag()
    guard found == .float else { throw mismatch(Float.self, found: found) }
    return Float(bitPattern: try input.fixed(UInt32.self, at: position + 1, codingPath))
  }

  func decodeInteger<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
    let found = try tag()
    let (raw, _) = try input.varint(at: position + 1, codingPath)
    let value: T?
    switch found {
    case .signed:
      let wide = Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1)
      value = T(exactly: wide)
    case .unsigned:
      value = T(exactly: raw)
    default:
      throw mismatch(type, found: found)
    }
    guard let value else {
      throw DecodingError.dataCorrupted(
        .init(codingPath: codingPath, debugDescription: "a number out of range for \(type)"))
    }
    return value
  }

  func decodeNested<T: Decodable>(_: T.Type, at position: Int, key: (any CodingKey)?) throws
    -> T
  {
    try T(
      from: JournalValueDecoder(
        input: input, position: position, codingPath: codingPath + (key.map { [$0] } ?? [])))
  }
}

extension JournalValueDecoder {
  struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: JournalValueDecoder
    let entries: [(key: String, position: Int)]
    var codingPath: [any CodingKey] { decoder.codingPath }
    var allKeys: [Key] { entries.compactMap { Key(stringValue: $0.key) } }

    func contains(_ key: Key) -> Bool { entries.contains { $0.key == key.stringValue } }

    private func value(_ key: Key) throws -> JournalValueDecoder {
      guard let entry = entries.first(where: { $0.key == key.stringValue }) else {
        throw DecodingError.keyNotFound(
          key, .init(codingPath: codingPath, debugDescription: "no value for this key"))
      }
      return JournalValueDecoder(
        input: decoder.input, position: entry.position, codingPath: codingPath + [key])
    }

    func decodeNil(forKey key: Key) throws -> Bool { try value(key).decodeNil() }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
      try value(key).decode(type)
    }
    func decode(_ type: String.Type, forKey key: Key) throws -> String {
      try value(key).decode(type)
    }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
      try value(key).decode(type)
    }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
      try value(key).decode(type)
    }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
      try value(key).decodeInteger(type)
    }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 {
      try value(key).decodeInteger(type)
    }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 {
      try value(key).decodeInteger(type)
    }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 {
      try value(key).decodeInteger(type)
    }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
      try value(key).decodeInteger(type)
    }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt {
      try value(key).decodeInteger(type)
    }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 {
      try value(key).decodeInteger(type)
    }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 {
      try value(key).decodeInteger(type)
    }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 {
      try value(key).decodeInteger(type)
    }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
      try value(key).decodeInteger(type)
    }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
      try T(from: value(key))
    }

    func nestedContainer<NestedKey: CodingKey>(
      keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
      try value(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
      try value(key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
      guard let entry = entries.first(where: { $0.key == "super" }) else {
        throw DecodingError.dataCorrupted(
          .init(codingPath: codingPath, debugDescription: "no value for the key super"))
      }
      return JournalValueDecoder(
        input: decoder.input, position: entry.position, codingPath: codingPath)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder { try value(key) }
  }

  struct UnkeyedContainer: UnkeyedDecodingContainer {
    let decoder: JournalValueDecoder
    let elements: [Int]
    private(set) var currentIndex = 0
    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    init(decoder: JournalValueDecoder, elements: [Int]) {
      self.decoder = decoder
      self.elements = elements
    }

    private struct Index: CodingKey {
      var stringValue: String { "Index \(intValue ?? 0)" }
      var intValue: Int?
      init(_ index: Int) { intValue = index }
      init?(stringValue: String) { nil }
      init?(intValue: Int) { self.intValue = intValue }
    }

    /// The decoder of the next element; advances past it.
    private mutating func next() throws -> JournalValueDecoder {
      guard !isAtEnd else {
        throw DecodingError.valueNotFound(
          Any.self, .init(codingPath: codingPath, debugDescription: "the list has ended"))
      }
      defer { currentIndex += 1 }
      return JournalValueDecoder(
        input: decoder.input, position: elements[currentIndex],
        codingPath: codingPath + [Index(currentIndex)])
    }

    mutating func decodeNil() throws -> Bool {
      guard !isAtEnd else { return false }
      let element = JournalValueDecoder(
        input: decoder.input, position: elements[currentIndex], codingPath: codingPath)
      if try element.decodeNil() {
        currentIndex += 1
        return true
      }
      return false
    }
    mutating func decode(_ type: Bool.Type) throws -> Bool { try next().decode(type) }
    mutating func decode(_ type: String.Type) throws -> String { try next().decode(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try next().decode(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try next().decode(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try next().decodeInteger(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next().decodeInteger(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next().decodeInteger(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next().decodeInteger(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next().decodeInteger(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next().decodeInteger(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next().decodeInteger(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 {
      try next().decodeInteger(type)
    }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 {
      try next().decodeInteger(type)
    }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 {
      try next().decodeInteger(type)
    }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try T(from: next()) }

    mutating func nestedContainer<NestedKey: CodingKey>(
      keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
      try next().container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
      try next().unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder { try next() }
  }

  struct SingleValueContainer: SingleValueDecodingContainer {
    let decoder: JournalValueDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool { (try? decoder.decodeNil()) ?? false }
    func decode(_ type: Bool.Type) throws -> Bool { try decoder.decode(type) }
    func decode(_ type: String.Type) throws -> String { try decoder.decode(type) }
    func decode(_ type: Double.Type) throws -> Double { try decoder.decode(type) }
    func decode(_ type: Float.Type) throws -> Float { try decoder.decode(type) }
    func decode(_ type: Int.Type) throws -> Int { try decoder.decodeInteger(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decoder.decodeInteger(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decoder.decodeInteger(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decoder.decodeInteger(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decoder.decodeInteger(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try decoder.decodeInteger(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.decodeInteger(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.decodeInteger(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.decodeInteger(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.decodeInteger(type) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try T(from: decoder) }
  }
}

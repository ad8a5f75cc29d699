/// Encodes `Encodable` values into a journal's binary encoding (see ``JournalValueTag``),
/// streaming into a reused ``JournalBytes``.
///
/// `Codable` never tells an encoder that a container is finished, so containers close lazily:
/// each container knows its nesting level, and any write through a container first closes
/// every container opened deeper than it (writing their ``JournalValueTag/end`` tags); the
/// end of a nested value, and the end of the whole value, close what it opened. Containers
/// are therefore strictly nested in the output, which is what the decoder reads.
///
/// The encoder is a class so that the single-value and unkeyed containers it hands out are
/// the encoder itself, with no allocation; a keyed container costs the one allocation of
/// `KeyedEncodingContainer`'s box, which `Codable` imposes.
///
/// Not thread-safe: one owner at a time (the journal recorder, under its lock).
final class JournalValueEncoder: Encoder {
  let bytes: JournalBytes
  /// The number of containers whose ``JournalValueTag/end`` has not been written yet.
  private var openContainers = 0
  /// The level at which the next container opens: how many containers enclose it.
  private var level = 0

  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  init(into bytes: JournalBytes) {
    self.bytes = bytes
  }

  /// Appends `value`, complete (every container it opened is closed).
  func encode<T: Encodable>(_ value: T) throws {
    let before = bytes.count
    openContainers = 0
    level = 0
    try value.encode(to: self)
    close(downTo: 0)
    if bytes.count == before { bytes.append(JournalValueTag.null.rawValue) }
  }

  /// Writes the end tags of every open container deeper than `depth`.
  @inline(__always)
  func close(downTo depth: Int) {
    while openContainers > depth {
      bytes.append(JournalValueTag.end.rawValue)
      openContainers -= 1
    }
  }

  /// Opens a container at the current level and returns the level of its contents.
  private func open(_ tag: JournalValueTag) -> Int {
    close(downTo: level)
    bytes.append(tag.rawValue)
    openContainers = level + 1
    return level + 1
  }

  /// Encodes a nested value whose containers open at `contentLevel`.
  func encodeNested<T: Encodable>(_ value: T, at contentLevel: Int) throws {
    let before = bytes.count
    let saved = level
    level = contentLevel
    defer { level = saved }
    try value.encode(to: self)
    close(downTo: contentLevel)
    // A value that wrote nothing still takes its key's place.
    if bytes.count == before { bytes.append(JournalValueTag.null.rawValue) }
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    KeyedEncodingContainer(KeyedContainer<Key>(encoder: self, level: open(.map)))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    UnkeyedContainer(encoder: self, level: open(.list))
  }

  func singleValueContainer() -> any SingleValueEncodingContainer {
    SingleValueContainer(encoder: self, level: level)
  }

  // MARK: Primitives

  func writeNil() { bytes.append(JournalValueTag.null.rawValue) }
  func write(_ value: Bool) {
    bytes.append(value ? JournalValueTag.true.rawValue : JournalValueTag.false.rawValue)
  }
  func write(_ value: String) {
    bytes.append(JournalValueTag.string.rawValue)
    bytes.appendString(value)
  }
  func write(_ value: Double) {
    bytes.append(JournalValueTag.double.rawValue)
    bytes.appendFixed(value.bitPattern)
  }
  func write(_ value: Float) {
    bytes.append(JournalValueTag.float.rawValue)
    bytes.appendFixed(value.bitPattern)
  }
  func write<T: FixedWidthInteger & SignedInteger>(signed value: T) {
    bytes.append(JournalValueTag.signed.rawValue)
    let wide = Int64(value)
    bytes.appendVarint(UInt64(bitPattern: (wide << 1) ^ (wide >> 63)))
  }
  func write<T: FixedWidthInteger & UnsignedInteger>(unsigned value: T) {
    bytes.append(JournalValueTag.unsigned.rawValue)
    bytes.appendVarint(UInt64(value))
  }

  func writeKey(_ key: some CodingKey) {
    bytes.appendString(key.stringValue)
  }
}

extension JournalValueEncoder {
  struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: JournalValueEncoder
    /// The level of this container's contents.
    let level: Int
    var codingPath: [any CodingKey] { [] }

    @inline(__always)
    private func begin(_ key: Key) {
      encoder.close(downTo: level)
      encoder.writeKey(key)
    }

    mutating func encodeNil(forKey key: Key) throws { begin(key); encoder.writeNil() }
    mutating func encode(_ value: Bool, forKey key: Key) throws {
      begin(key); encoder.write(value)
    }
    mutating func encode(_ value: String, forKey key: Key) throws {
      begin(key); encoder.write(value)
    }
    mutating func encode(_ value: Double, forKey key: Key) throws {
      begin(key); encoder.write(value)
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
      begin(key); encoder.write(value)
    }
    mutating func encode(_ value: Int, forKey key: Key) throws {
      begin(key); encoder.write(signed: value)
    }
    mutating func encode(_ value: Int8, forKey key: Key) throws {
      begin(key); encoder.write(signed: value)
    }
    mutating func encode(_ value: Int16, forKey key: Key) throws {
      begin(key); encoder.write(signed: value)
    }
    mutating func encode(_ value: Int32, forKey key: Key) throws {
      begin(key); encoder.write(signed: value)
    }
    mutating func encode(_ value: Int64, forKey key: Key) throws {
      begin(key); encoder.write(signed: value)
    }
    mutating func encode(_ value: UInt, forKey key: Key) throws {
      begin(key); encoder.write(unsigned: value)
    }
    mutating func encode(_ value: UInt8, forKey key: Key) throws {
      begin(key); encoder.write(unsigned: value)
    }
    mutating func encode(_ value: UInt16, forKey key: Key) throws {
      begin(key); encoder.write(unsigned: value)
    }
    mutating func encode(_ value: UInt32, forKey key: Key) throws {
      begin(key); encoder.write(unsigned: value)
    }
    mutating func encode(_ value: UInt64, forKey key: Key) throws {
      begin(key); encoder.write(unsigned: value)
    }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
      begin(key)
      try encoder.encodeNested(value, at: level)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
      keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
      begin(key)
      return encoder.withLevel(level) { encoder.container(keyedBy: keyType) }
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
      begin(key)
      return encoder.withLevel(level) { encoder.unkeyedContainer() }
    }

    mutating func superEncoder() -> any Encoder {
      encoder.close(downTo: level)
      encoder.bytes.appendString("super")
      return SuperEncoder(encoder: encoder, level: level)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
      begin(key)
      return SuperEncoder(encoder: encoder, level: level)
    }
  }

  struct UnkeyedContainer: UnkeyedEncodingContainer {
    let encoder: JournalValueEncoder
    let level: Int
    private(set) var count = 0
    var codingPath: [any CodingKey] { [] }

    init(encoder: JournalValueEncoder, level: Int) {
      self.encoder = encoder
      self.level = level
    }

    @inline(__always)
    private mutating func begin() {
      encoder.close(downTo: level)
      count += 1
    }

    mutating func encodeNil() throws { begin(); encoder.writeNil() }
    mutating func encode(_ value: Bool) throws { begin(); encoder.write(value) }
    mutating func encode(_ value: String) throws { begin(); encoder.write(value) }
    mutating func encode(_ value: Double) throws { begin(); encoder.write(value) }
    mutating func encode(_ value: Float) throws { begin(); encoder.write(value) }
    mutating func encode(_ value: Int) throws { begin(); encoder.write(signed: value) }
    mutating func encode(_ value: Int8) throws { begin(); encoder.write(signed: value) }
    mutating func encode(_ value: Int16) throws { begin(); encoder.write(signed: value) }
    mutating func encode(_ value: Int32) throws { begin(); encoder.write(signed: value) }
    mutating func encode(_ value: Int64) throws { begin(); encoder.write(signed: value) }
    mutating func encode(_ value: UInt) throws { begin(); encoder.write(unsigned: value) }
    mutating func encode(_ value: UInt8) throws { begin(); encoder.write(unsigned: value) }
    mutating func encode(_ value: UInt16) throws { begin(); encoder.write(unsigned: value) }
    mutating func encode(_ value: UInt32) throws { begin(); encoder.write(unsigned: value) }
    mutating func encode(_ value: UInt64) throws { begin(); encoder.write(unsigned: value) }
    mutating func encode<T: Encodable>(_ value: T) throws {
      begin()
      try encoder.encodeNested(value, at: level)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
      keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
      begin()
      return encoder.withLevel(level) { encoder.container(keyedBy: keyType) }
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
      begin()
      return encoder.withLevel(level) { encoder.unkeyedContainer() }
    }

    mutating func superEncoder() -> any Encoder {
      begin()
      return SuperEncoder(encoder: encoder, level: level)
    }
  }

  struct SingleValueContainer: SingleValueEncodingContainer {
    let encoder: JournalValueEncoder
    let level: Int
    var codingPath: [any CodingKey] { [] }

    /// The encoder, with containers opened deeper than this value closed.
    private var out: JournalValueEncoder {
      encoder.close(downTo: level)
      return encoder
    }

    mutating func encodeNil() throws { out.writeNil() }
    mutating func encode(_ value: Bool) throws { out.write(value) }
    mutating func encode(_ value: String) throws { out.write(value) }
    mutating func encode(_ value: Double) throws { out.write(value) }
    mutating func encode(_ value: Float) throws { out.write(value) }
    mutating func encode(_ value: Int) throws { out.write(signed: value) }
    mutating func encode(_ value: Int8) throws { out.write(signed: value) }
    mutating func encode(_ value: Int16) throws { out.write(signed: value) }
    mutating func encode(_ value: Int32) throws { out.write(signed: value) }
    mutating func encode(_ value: Int64) throws { out.write(signed: value) }
    mutating func encode(_ value: UInt) throws { out.write(unsigned: value) }
    mutating func encode(_ value: UInt8) throws { out.write(unsigned: value) }
    mutating func encode(_ value: UInt16) throws { out.write(unsigned: value) }
    mutating func encode(_ value: UInt32) throws { out.write(unsigned: value) }
    mutating func encode(_ value: UInt64) throws { out.write(unsigned: value) }
    mutating func encode<T: Encodable>(_ value: T) throws {
      try out.encodeNested(value, at: level)
    }
  }

  /// The encoder handed out by `superEncoder()`: the main encoder, at the level of the value
  /// it stands for.
  struct SuperEncoder: Encoder {
    let encoder: JournalValueEncoder
    let level: Int
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
      encoder.withLevel(level) { encoder.container(keyedBy: type) }
    }
    func unkeyedContainer() -> any UnkeyedEncodingContainer {
      encoder.withLevel(level) { encoder.unkeyedContainer() }
    }
    func singleValueContainer() -> any SingleValueEncodingContainer {
      SingleValueContainer(encoder: encoder, level: level)
    }
  }

  /// Runs `body` (which opens one container) with the next container's level set to `level`.
  func withLevel<R>(_ contentLevel: Int, _ body: () -> R) -> R {
    let saved = level
    level = contentLevel
    defer { level = saved }
    return body()
  }
}

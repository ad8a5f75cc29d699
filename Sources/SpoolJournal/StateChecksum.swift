/// The checksum of a state that a journal's end record holds and a replay compares.
///
/// The state is encoded with the journal's binary encoding, then hashed (64-bit FNV-1a) in a
/// canonical form: the entries of every keyed container are hashed in the order of their
/// keys, not in the order the state wrote them. So a `Dictionary` with `String` or `Int` keys
/// (which `Codable` writes as a keyed container, in the hash order of the process) gives the
/// same checksum in every process. Other unordered collections (a `Set`, a dictionary with
/// other keys) are written as lists, in an order that changes between processes: a state that
/// holds them must encode them sorted for its checksum to be reproducible.
enum StateChecksum {
  static func of<State: Encodable>(_ state: State) throws -> UInt64 {
    let bytes = JournalBytes()
    try JournalValueEncoder(into: bytes).encode(state)
    let input = JournalValueDecoder.Input(bytes.bytes)
    return try hash(input, at: 0).hash
  }

  private static let offsetBasis: UInt64 = 0xCBF2_9CE4_8422_2325
  private static let prime: UInt64 = 0x0000_0100_0000_01B3

  private static func mix(_ hash: inout UInt64, _ byte: UInt8) {
    hash = (hash ^ UInt64(byte)) &* prime
  }

  private static func mix(_ hash: inout UInt64, _ value: UInt64) {
    for shift in stride(from: 0, to: 64, by: 8) {
      mix(&hash, UInt8(truncatingIfNeeded: value >> shift))
    }
  }

  /// The canonical hash of the value at `position`, and the position after it.
  private static func hash(
    _ input: JournalValueDecoder.Input, at position: Int
  ) throws -> (hash: UInt64, next: Int) {
    let tag = try input.byte(at: position, [])
    var hash = offsetBasis
    mix(&hash, tag)
    if tag == JournalValueTag.map.rawValue {
      var entries: [(key: ArraySlice<UInt8>, hash: UInt64)] = []
      var cursor = position + 1
      while try input.byte(at: cursor, []) != JournalValueTag.end.rawValue {
        let keyStart = cursor
        cursor = try input.string(at: cursor, []).1
        let value = try self.hash(input, at: cursor)
        entries.append((input.bytes[keyStart..<cursor], value.hash))
        cursor = value.next
      }
      entries.sort { $0.key.lexicographicallyPrecedes($1.key) }
      for entry in entries {
        for byte in entry.key { mix(&hash, byte) }
        mix(&hash, entry.hash)
      }
      return (hash, cursor + 1)
    }
    if tag == JournalValueTag.list.rawValue {
      var cursor = position + 1
      while try input.byte(at: cursor, []) != JournalValueTag.end.rawValue {
        let value = try self.hash(input, at: cursor)
        mix(&hash, value.hash)
        cursor = value.next
      }
      return (hash, cursor + 1)
    }
    let next = try input.skip(at: position, [])
    for byte in input.bytes[(position + 1)..<next] { mix(&hash, byte) }
    return (hash, next)
  }
}

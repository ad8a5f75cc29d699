/// The journal's encoding of one action type and of states, for another journal backend of
/// Spool's (SpoolPostgres) that stores the same bytes a journal file's records hold.
///
/// An action is written with its ``JournalCodable`` conformance when it has one, and with
/// `Codable` through the journal's value encoding otherwise; ``actionEncoding`` names which, so
/// that a backend can store it beside the records and refuse to read them with another.
///
/// Not thread-safe: one owner at a time (encoding reuses one buffer).
package final class JournalRecordCoder<Action: Codable & Sendable> {
  private let encoder = JournalActionEncoding.erased(for: Action.self)
  private let read = JournalActionEncoding.reader(for: Action.self)
  private let buffer = JournalBytes()
  private lazy var valueEncoder = JournalValueEncoder(into: buffer)

  package init() {}

  /// How actions are encoded: "Codable", or "JournalCodable (layout N)".
  package var actionEncoding: String { JournalActionEncoding.of(Action.self).description }

  /// The bytes of `action`, as a journal file's action record holds them after its time.
  package func encode(_ action: Action) throws -> [UInt8] {
    buffer.removeAll()
    try withUnsafePointer(to: action) { pointer in
      try encoder.encode(UnsafeRawPointer(pointer), into: buffer, encoder: valueEncoder)
    }
    return buffer.bytes
  }

  /// The action `bytes` hold; throws when they are not one whole action of this type.
  package func decode(_ bytes: [UInt8]) throws -> Action {
    if let read {
      return try JournalRecordReader.read(read, from: bytes, in: bytes.indices)
    }
    return try JournalValueDecoder.decode(Action.self, from: bytes)
  }

  /// The bytes of `state`, as a journal file's snapshot record holds them.
  package static func encodeState<State: Encodable>(_ state: State) throws -> [UInt8] {
    let bytes = JournalBytes()
    try JournalValueEncoder(into: bytes).encode(state)
    return bytes.bytes
  }

  /// The state `bytes` hold; throws when they are not one whole value of `State`.
  package static func decodeState<State: Decodable>(
    _: State.Type, from bytes: [UInt8]
  ) throws -> State {
    try JournalValueDecoder.decode(State.self, from: bytes)
  }

  /// The checksum a journal's snapshot and end records hold for `state`.
  package static func checksum<State: Encodable>(of state: State) throws -> UInt64 {
    try StateChecksum.of(state)
  }
}

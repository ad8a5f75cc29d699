/// How a journal encodes its actions, as its header records it: `Codable` (the
/// ``JournalValueTag`` encoding) or the action's own ``JournalCodable`` layout, with its
/// version. A journal is read only with the encoding it was written with.
enum JournalActionEncoding: Hashable, CustomStringConvertible {
  case codable
  case journalCodable(layout: UInt32)

  /// The header's encoding byte for each case.
  static let codableKind: UInt8 = 0
  static let journalCodableKind: UInt8 = 1

  /// The encoding used for `Action`: its own when it adopts ``JournalCodable``.
  static func of<Action>(_: Action.Type) -> JournalActionEncoding {
    guard let type = Action.self as? any JournalCodable.Type else { return .codable }
    return .journalCodable(layout: type.journalLayoutVersion)
  }

  var kind: UInt8 {
    switch self {
    case .codable: Self.codableKind
    case .journalCodable: Self.journalCodableKind
    }
  }

  var layout: UInt32 {
    switch self {
    case .codable: 0
    case .journalCodable(let layout): layout
    }
  }

  init?(kind: UInt8, layout: UInt32) {
    switch kind {
    case Self.codableKind: self = .codable
    case Self.journalCodableKind: self = .journalCodable(layout: layout)
    default: return nil
    }
  }

  var description: String {
    switch self {
    case .codable: "Codable"
    case .journalCodable(let layout): "JournalCodable (layout \(layout))"
    }
  }

  /// Reads an `Action` with its ``JournalCodable/init(from:)``.
  typealias Read<Action> = (_ reader: inout JournalRecordReader) throws -> Action

  /// The encoder of `Action`, its type erased (see ``JournalActionEncoder``): its own
  /// `write(to:)` when it adopts ``JournalCodable``, else its `encode(to:)`.
  static func erased<Action: Encodable>(for _: Action.Type) -> JournalActionEncoder {
    if let type = Action.self as? any JournalCodable.Type { return compact(type) }
    return CodableActionEncoder<Action>()
  }

  private static func compact<Adopting: JournalCodable>(
    _: Adopting.Type
  ) -> JournalActionEncoder {
    CompactActionEncoder<Adopting>()
  }

  /// `Action`'s ``JournalCodable/init(from:)``, when it adopts the protocol.
  static func reader<Action>(for _: Action.Type) -> Read<Action>? {
    guard let type = Action.self as? any JournalCodable.Type else { return nil }
    return reader(type, as: Action.self)
  }

  private static func reader<Adopting: JournalCodable, Action>(
    _: Adopting.Type, as _: Action.Type
  ) -> Read<Action> {
    { reader in
      let value = try Adopting(from: &reader)
      // `Action` is `Adopting` (checked once above).
      return withUnsafePointer(to: value) { pointer in
        UnsafeRawPointer(pointer).assumingMemoryBound(to: Action.self).pointee
      }
    }
  }
}

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

  /// An action's encoder with the action's type erased: it takes a pointer to the action, so
  /// that the recorder's state need not be generic (see `JournalRecorderCore`).
  enum Erased {
    case journalCodable((_ action: UnsafeRawPointer, _ writer: inout JournalRecordWriter) -> Void)
    case codable((_ action: UnsafeRawPointer, _ encoder: JournalValueEncoder) throws -> Void)
  }

  /// The encoder of `Action`, erased: its own `write(to:)` when it adopts ``JournalCodable``,
  /// else its `encode(to:)`.
  static func erased<Action: Encodable>(for _: Action.Type) -> Erased {
    if let type = Action.self as? any JournalCodable.Type { return erased(type) }
    return .codable { action, encoder in
      try encoder.encode(action.assumingMemoryBound(to: Action.self).pointee)
    }
  }

  private static func erased<Adopting: JournalCodable>(_: Adopting.Type) -> Erased {
    .journalCodable { action, writer in
      // The pointer is to an `Action`, which is `Adopting` (checked once above).
      action.assumingMemoryBound(to: Adopting.self).pointee.write(to: &writer)
    }
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

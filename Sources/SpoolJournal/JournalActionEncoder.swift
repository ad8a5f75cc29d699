/// Encodes an action given by a pointer to it, so that the recorder's state need not be generic
/// in the action (see `JournalRecorderCore`).
///
/// A class, not an enum of closures: the recorder calls it through a `let`, which costs one
/// virtual call and no retain, where binding an enum's closure payload retains and releases
/// the closure's context on every action.
class JournalActionEncoder {
  /// Whether the action is written with its `JournalCodable` conformance.
  var isCompact: Bool { false }

  /// Appends the action at `action` to `record`, using `encoder` for `Codable`.
  func encode(
    _ action: UnsafeRawPointer, into record: JournalBytes, encoder: JournalValueEncoder
  ) throws {
    preconditionFailure("Internal inconsistency: JournalActionEncoder is abstract")
  }
}

/// An adopting action's own `write(to:)`.
final class CompactActionEncoder<Action: JournalCodable>: JournalActionEncoder {
  override var isCompact: Bool { true }

  override func encode(
    _ action: UnsafeRawPointer, into record: JournalBytes, encoder: JournalValueEncoder
  ) {
    var writer = JournalRecordWriter(appendingTo: record)
    action.assumingMemoryBound(to: Action.self).pointee.write(to: &writer)
    record.setCount(writer.byteCount)
  }
}

/// A `Codable`-only action's `encode(to:)`, through the journal's value encoder.
final class CodableActionEncoder<Action: Encodable>: JournalActionEncoder {
  override func encode(
    _ action: UnsafeRawPointer, into record: JournalBytes, encoder: JournalValueEncoder
  ) throws {
    try encoder.encode(action.assumingMemoryBound(to: Action.self).pointee)
  }
}

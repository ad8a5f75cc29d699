import SpoolJournal

/// The effects feature's actions in the journal's compact encoding: a case byte, then the value.
///
/// So that recording the `effects` workload (`spool bench journal`) costs a few stores per
/// action, not `Codable`'s keyed containers.
///
/// ```swift
/// let journal = try ActionJournal<EffectsFeature.Action>.recording(to: "/var/tmp/effects")
/// ```
extension EffectsFeature.Action: JournalCodable {
  /// Writes the case (0 `request`, 1 `response`) and its value.
  ///
  /// ```swift
  /// EffectsFeature.Action.request(3).write(to: &writer)  // bytes 0, 6
  /// ```
  @inlinable
  public func write(to writer: inout JournalRecordWriter) {
    switch self {
    case .request(let value):
      writer.writeByte(0)
      writer.write(value)
    case .response(let value):
      writer.writeByte(1)
      writer.write(value)
    }
  }

  /// Reads an action that ``write(to:)`` wrote.
  ///
  /// ```swift
  /// let action = try EffectsFeature.Action(from: &reader)
  /// ```
  public init(from reader: inout JournalRecordReader) throws {
    switch try reader.readByte() {
    case 0: self = .request(try reader.read(Int.self))
    case 1: self = .response(try reader.read(Int.self))
    case let other: throw reader.error("unknown EffectsFeature.Action case \(other)")
    }
  }
}

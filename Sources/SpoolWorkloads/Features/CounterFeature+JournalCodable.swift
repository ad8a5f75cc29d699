import SpoolJournal

/// The counter's actions in the journal's compact encoding: a case byte, then the payload.
///
/// So that recording the `counter` workload (`spool bench journal`) costs a few stores per
/// action, not `Codable`'s keyed containers.
///
/// ```swift
/// let journal = try ActionJournal<CounterFeature.Action>.recording(to: "/var/tmp/counter")
/// ```
extension CounterFeature.Action: JournalCodable {
  /// Writes the case (0 `increment`, 1 `add`) and its payload.
  ///
  /// ```swift
  /// CounterFeature.Action.add(5).write(to: &writer)  // bytes 1, 10
  /// ```
  @inlinable
  public func write(to writer: inout JournalRecordWriter) {
    switch self {
    case .increment:
      writer.writeByte(0)
    case .add(let value):
      writer.writeByte(1)
      writer.write(value)
    }
  }

  /// Reads an action that ``write(to:)`` wrote.
  ///
  /// ```swift
  /// let action = try CounterFeature.Action(from: &reader)
  /// ```
  public init(from reader: inout JournalRecordReader) throws {
    switch try reader.readByte() {
    case 0: self = .increment
    case 1: self = .add(try reader.read(Int.self))
    case let other: throw reader.error("unknown CounterFeature.Action case \(other)")
    }
  }
}

/// A value that writes itself into a journal record and reads itself back, without `Codable`.
///
/// An ``ActionJournal`` encodes an action with `Codable` unless the action type also adopts
/// `JournalCodable`; then it calls ``write(to:)``, which stores the action's bytes straight into
/// the recorder's reused buffer: no allocation, no generic-metadata lookup, no reference
/// counting per action. `Codable` stays required (it is the fallback, and the state checksum
/// uses it), so adopting this protocol is an optimization a feature can make later.
///
/// The encoding is compact and not self-describing: a record holds only what ``write(to:)``
/// wrote, and ``init(from:)`` must read the same values in the same order. Give each enum case a
/// number of its own (never reuse one), and raise ``journalLayoutVersion`` whenever the bytes
/// change meaning: the journal's header records it, and a replay with another layout (or
/// another encoding) stops with a one-line ``JournalError`` naming the file and byte, instead of
/// misreading the records.
///
/// Integers, `Bool`, `Float`, `Double`, `String`, and optionals and arrays of adopting types
/// adopt it already, so a nested value is one ``JournalRecordWriter/write(_:)`` call.
///
/// ```swift
/// extension Counter.Action: JournalCodable {
///   func write(to writer: inout JournalRecordWriter) {
///     switch self {
///     case .increment: writer.write(UInt8(0))
///     case .add(let value):
///       writer.write(UInt8(1))
///       writer.write(value)
///     }
///   }
///
///   init(from reader: inout JournalRecordReader) throws {
///     switch try reader.read(UInt8.self) {
///     case 0: self = .increment
///     case 1: self = .add(try reader.read(Int.self))
///     case let other: throw reader.error("unknown Counter.Action case \(other)")
///     }
///   }
/// }
/// ```
public protocol JournalCodable {
  /// Appends the value's bytes to `writer`.
  ///
  /// ```swift
  /// func write(to writer: inout JournalRecordWriter) {
  ///   writer.write(id)
  ///   writer.write(name)
  /// }
  /// ```
  func write(to writer: inout JournalRecordWriter)

  /// Reads a value that ``write(to:)`` wrote, from the bytes `reader` is at.
  ///
  /// - Throws: The ``JournalReadError`` of a read past the record's end, or one made with
  ///   ``JournalRecordReader/error(_:)`` for bytes that mean nothing (an unknown case).
  ///
  /// ```swift
  /// init(from reader: inout JournalRecordReader) throws {
  ///   id = try reader.read(Int.self)
  ///   name = try reader.read(String.self)
  /// }
  /// ```
  init(from reader: inout JournalRecordReader) throws

  /// The version of the layout ``write(to:)`` writes; a journal records it, and reading one of
  /// another layout version fails. 1 unless the type says otherwise.
  ///
  /// ```swift
  /// static var journalLayoutVersion: UInt32 { 2 }  // `.add` now carries an `Int64`
  /// ```
  static var journalLayoutVersion: UInt32 { get }
}

extension JournalCodable {
  /// Layout version 1.
  ///
  /// ```swift
  /// Counter.Action.journalLayoutVersion  // 1
  /// ```
  public static var journalLayoutVersion: UInt32 { 1 }
}

/// Where a ``JournalCodable`` value reads its bytes back from: one record of a journal.
///
/// Every read is bounds-checked against the end of the record: reading past it (a record cut
/// short, or a layout that does not match) throws a ``JournalReadError`` naming the byte,
/// never a crash. The reader exists only during a call to ``JournalCodable/init(from:)``.
///
/// ```swift
/// init(from reader: inout JournalRecordReader) throws {
///   switch try reader.read(UInt8.self) {
///   case 0: self = .increment
///   case 1: self = .add(try reader.read(Int.self))
///   case let other: throw reader.error("unknown case \(other)")
///   }
/// }
/// ```
public struct JournalRecordReader: ~Copyable {
  /// Valid for as long as the reader exists: the loader reads each record inside a call that
  /// holds the file's bytes (see `JournalRecordReader.read(_:from:)`).
  @usableFromInline let base: UnsafeRawPointer
  @usableFromInline let end: Int
  @usableFromInline var offset: Int

  init(_ bytes: UnsafeRawBufferPointer) {
    // An empty buffer may have no base address; any pointer will do, as nothing is read.
    base = UnsafeRawPointer(bytes.baseAddress) ?? UnsafeRawPointer(bitPattern: 1)!
    end = bytes.count
    offset = 0
  }

  /// The offset of the next byte to read, from the start of the action's bytes.
  ///
  /// ```swift
  /// print(reader.byteOffset)  // 0 before the first read
  /// ```
  public var byteOffset: Int { offset }

  /// Bytes left in the record.
  ///
  /// ```swift
  /// if reader.remainingBytes == 0 { return }
  /// ```
  public var remainingBytes: Int { end - offset }

  /// An error at the current byte, for bytes that mean nothing to the type (an unknown case).
  ///
  /// ```swift
  /// throw reader.error("unknown Counter.Action case \(tag)")
  /// ```
  public func error(_ reason: String) -> JournalReadError {
    JournalReadError(offset: offset, reason: reason)
  }

  @usableFromInline
  func cutShort(_ needed: Int) -> JournalReadError {
    JournalReadError(
      offset: offset,
      reason: "the record ends here: \(needed) more bytes needed, \(end - offset) left")
  }

  /// Reads a value with its own ``JournalCodable/init(from:)``.
  ///
  /// ```swift
  /// let amount = try reader.read(Int64.self)
  /// let entry = try reader.read(Entry.self)
  /// ```
  @inlinable @inline(__always)
  public mutating func read<Value: JournalCodable>(
    _: Value.Type = Value.self
  ) throws -> Value {
    try Value(from: &self)
  }

  /// Reads one byte as is.
  ///
  /// - Throws: ``JournalReadError`` at the end of the record.
  ///
  /// ```swift
  /// let tag = try reader.readByte()
  /// ```
  @inlinable @inline(__always)
  public mutating func readByte() throws(JournalReadError) -> UInt8 {
    guard offset < end else { throw cutShort(1) }
    let byte = base.load(fromByteOffset: offset, as: UInt8.self)
    offset &+= 1
    return byte
  }

  /// Reads a varint written by ``JournalRecordWriter/writeUnsigned(_:)``.
  ///
  /// - Throws: ``JournalReadError`` when the record ends inside it or it runs past 64 bits.
  ///
  /// ```swift
  /// let count = try reader.readUnsigned()
  /// ```
  @inlinable
  public mutating func readUnsigned() throws(JournalReadError) -> UInt64 {
    let start = offset
    var value: UInt64 = 0
    var shift: UInt64 = 0
    while true {
      guard offset < end else { throw cutShort(1) }
      let byte = base.load(fromByteOffset: offset, as: UInt8.self)
      offset &+= 1
      if shift == 63 && byte > 1 {
        offset = start
        throw error("a varint longer than 64 bits")
      }
      value |= UInt64(byte & 0x7F) << shift
      if byte & 0x80 == 0 { return value }
      shift &+= 7
    }
  }

  /// Reads a zigzag varint written by ``JournalRecordWriter/writeSigned(_:)``.
  ///
  /// - Throws: ``JournalReadError`` when the record ends inside it.
  ///
  /// ```swift
  /// let delta = try reader.readSigned()
  /// ```
  @inlinable
  public mutating func readSigned() throws(JournalReadError) -> Int64 {
    let zigzag = try readUnsigned()
    return Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1)
  }

  /// Reads a little-endian integer written by ``JournalRecordWriter/writeFixed(_:)``.
  ///
  /// - Throws: ``JournalReadError`` when fewer bytes than its width are left.
  ///
  /// ```swift
  /// let magic = try reader.readFixed(UInt32.self)
  /// ```
  @inlinable
  public mutating func readFixed<T: FixedWidthInteger>(
    _: T.Type = T.self
  ) throws(JournalReadError) -> T {
    let size = MemoryLayout<T>.size
    guard end - offset >= size else { throw cutShort(size) }
    let value = T(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: T.self))
    offset &+= size
    return value
  }

  /// Reads bytes written by ``JournalRecordWriter/writeBytes(_:)-(UnsafeRawBufferPointer)``,
  /// and passes them to `body` without copying them; they are valid only inside `body`.
  ///
  /// - Throws: ``JournalReadError`` when the record holds fewer bytes than the count says.
  ///
  /// ```swift
  /// let name = try reader.withBytes { String(decoding: $0, as: UTF8.self) }
  /// ```
  @inlinable
  public mutating func withBytes<Result>(
    _ body: (UnsafeRawBufferPointer) throws(JournalReadError) -> Result
  ) throws(JournalReadError) -> Result {
    let start = offset
    let length = try readUnsigned()
    guard length <= UInt64(end - offset) else {
      let left = end - offset
      offset = start
      throw error("a run of \(length) bytes, but only \(left) bytes are left in the record")
    }
    let bytes = UnsafeRawBufferPointer(start: base + offset, count: Int(length))
    offset &+= Int(length)
    return try body(bytes)
  }

  /// Reads bytes written by ``JournalRecordWriter/writeBytes(_:)-(UnsafeRawBufferPointer)``.
  ///
  /// - Throws: ``JournalReadError`` when the record holds fewer bytes than the count says.
  ///
  /// ```swift
  /// let digest = try reader.readBytes()
  /// ```
  public mutating func readBytes() throws(JournalReadError) -> [UInt8] {
    try withBytes { [UInt8]($0) }
  }
}

/// Why a ``JournalCodable`` value could not be read from its record: the byte (from the start
/// of the action's bytes) and what was wrong there.
///
/// A journal's loader reports it inside a ``JournalError`` that names the file and the record.
///
/// ```swift
/// throw reader.error("unknown case 9")  // "byte 0 of the action: unknown case 9"
/// ```
public struct JournalReadError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The offset of the byte, from the start of the action's bytes.
  public var offset: Int
  /// What was wrong.
  public var reason: String

  /// Creates an error; ``JournalRecordReader/error(_:)`` fills in the offset.
  ///
  /// ```swift
  /// let error = JournalReadError(offset: 3, reason: "unknown case 9")
  /// ```
  public init(offset: Int, reason: String) {
    self.offset = offset
    self.reason = reason
  }

  /// `byte OFFSET of the action: REASON`.
  public var description: String { "byte \(offset) of the action: \(reason)" }
}

extension JournalRecordReader {
  /// Reads one action with `read` from `bytes[range]`, which it must take up entirely.
  static func read<Action>(
    _ read: JournalActionEncoding.Read<Action>, from bytes: [UInt8], in range: Range<Int>
  ) throws -> Action {
    try bytes.withUnsafeBytes { buffer in
      var reader = JournalRecordReader(UnsafeRawBufferPointer(rebasing: buffer[range]))
      let action = try read(&reader)
      guard reader.remainingBytes == 0 else {
        throw reader.error("\(reader.remainingBytes) bytes left after the action")
      }
      return action
    }
  }
}

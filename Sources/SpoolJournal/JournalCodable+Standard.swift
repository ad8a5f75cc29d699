// The standard library's values as journal values, so that an action's payloads are one
// `writer.write(_:)` / `reader.read(_:)` each.

extension JournalRecordReader {
  /// Reads a zigzag varint as `T`, failing when it does not fit.
  @inlinable
  mutating func readSignedInteger<T: FixedWidthInteger & SignedInteger>(
    _: T.Type
  ) throws(JournalReadError) -> T {
    let start = offset
    let wide = try readSigned()
    guard let value = T(exactly: wide) else {
      offset = start
      throw error("\(wide) does not fit \(T.self)")
    }
    return value
  }

  /// Reads a varint as `T`, failing when it does not fit.
  @inlinable
  mutating func readUnsignedInteger<T: FixedWidthInteger & UnsignedInteger>(
    _: T.Type
  ) throws(JournalReadError) -> T {
    let start = offset
    let wide = try readUnsigned()
    guard let value = T(exactly: wide) else {
      offset = start
      throw error("\(wide) does not fit \(T.self)")
    }
    return value
  }
}

/// Signed integers as zigzag varints: small magnitudes, either sign, take one or two bytes.
extension JournalCodable where Self: FixedWidthInteger & SignedInteger {
  /// Writes the value as a zigzag varint.
  ///
  /// ```swift
  /// Int32(-3).write(to: &writer)  // one byte
  /// ```
  @inlinable @inline(__always)
  public func write(to writer: inout JournalRecordWriter) { writer.writeSigned(Int64(self)) }

  /// Reads a zigzag varint; a value that does not fit the type is an error at its offset.
  ///
  /// ```swift
  /// let value = try Int16(from: &reader)
  /// ```
  @inlinable
  public init(from reader: inout JournalRecordReader) throws {
    self = try reader.readSignedInteger(Self.self)
  }
}

/// Unsigned integers as varints (but `UInt8`, one byte as is).
extension JournalCodable where Self: FixedWidthInteger & UnsignedInteger {
  /// Writes the value as a varint.
  ///
  /// ```swift
  /// UInt32(300).write(to: &writer)  // two bytes
  /// ```
  @inlinable @inline(__always)
  public func write(to writer: inout JournalRecordWriter) { writer.writeUnsigned(UInt64(self)) }

  /// Reads a varint; a value that does not fit the type is an error at its offset.
  ///
  /// ```swift
  /// let value = try UInt16(from: &reader)
  /// ```
  @inlinable
  public init(from reader: inout JournalRecordReader) throws {
    self = try reader.readUnsignedInteger(Self.self)
  }
}

extension Int: JournalCodable {}
extension Int8: JournalCodable {}
extension Int16: JournalCodable {}
extension Int32: JournalCodable {}
extension Int64: JournalCodable {}
extension UInt: JournalCodable {}
extension UInt16: JournalCodable {}
extension UInt32: JournalCodable {}
extension UInt64: JournalCodable {}

/// One byte, as is.
extension UInt8: JournalCodable {
  @inlinable @inline(__always)
  public func write(to writer: inout JournalRecordWriter) { writer.writeByte(self) }
  @inlinable
  public init(from reader: inout JournalRecordReader) throws {
    self = try reader.readByte()
  }
}

/// One byte: 0 or 1.
extension Bool: JournalCodable {
  @inlinable
  public func write(to writer: inout JournalRecordWriter) { writer.writeByte(self ? 1 : 0) }
  @inlinable
  public init(from reader: inout JournalRecordReader) throws {
    switch try reader.readByte() {
    case 0: self = false
    case 1: self = true
    case let other:
      throw JournalReadError(offset: reader.byteOffset - 1, reason: "\(other) is not a Bool")
    }
  }
}

/// Its 8 bit-pattern bytes, little-endian.
extension Double: JournalCodable {
  @inlinable
  public func write(to writer: inout JournalRecordWriter) { writer.writeFixed(bitPattern) }
  @inlinable
  public init(from reader: inout JournalRecordReader) throws {
    self = Double(bitPattern: try reader.readFixed(UInt64.self))
  }
}

/// Its 4 bit-pattern bytes, little-endian.
extension Float: JournalCodable {
  @inlinable
  public func write(to writer: inout JournalRecordWriter) { writer.writeFixed(bitPattern) }
  @inlinable
  public init(from reader: inout JournalRecordReader) throws {
    self = Float(bitPattern: try reader.readFixed(UInt32.self))
  }
}

/// Its UTF-8 bytes, preceded by their count (a varint).
extension String: JournalCodable {
  @inlinable
  public func write(to writer: inout JournalRecordWriter) {
    // Native strings are contiguous UTF-8: one copy, no allocation.
    let done: Void? = utf8.withContiguousStorageIfAvailable { utf8 in
      writer.writeBytes(UnsafeRawBufferPointer(utf8))
    }
    if done == nil { writer.writeBytes(utf8) }
  }
  @inlinable
  public init(from reader: inout JournalRecordReader) throws {
    let start = reader.byteOffset
    let string = try reader.withBytes { bytes throws(JournalReadError) in
      String(validating: bytes, as: UTF8.self)
    }
    guard let string else {
      throw JournalReadError(offset: start, reason: "a string that is not UTF-8")
    }
    self = string
  }
}

/// A byte, 0 for `nil` or 1, then the wrapped value.
extension Optional: JournalCodable where Wrapped: JournalCodable {
  @inlinable
  public func write(to writer: inout JournalRecordWriter) {
    switch self {
    case .none: writer.writeByte(0)
    case .some(let value):
      writer.writeByte(1)
      value.write(to: &writer)
    }
  }
  @inlinable
  public init(from reader: inout JournalRecordReader) throws {
    switch try reader.readByte() {
    case 0: self = .none
    case 1: self = .some(try reader.read(Wrapped.self))
    case let other:
      throw JournalReadError(
        offset: reader.byteOffset - 1, reason: "\(other) is not an Optional's tag")
    }
  }
}

/// The element count (a varint), then each element.
extension Array: JournalCodable where Element: JournalCodable {
  @inlinable
  public func write(to writer: inout JournalRecordWriter) {
    writer.writeUnsigned(UInt64(count))
    // Indices, not `for … in`: an unspecialized iterator allocates in debug builds, and the
    // recording of an adopting action must not (JournalRecorderAllocationTests).
    var index = 0
    while index < count {
      self[index].write(to: &writer)
      index &+= 1
    }
  }
  @inlinable
  public init(from reader: inout JournalRecordReader) throws {
    let count = try reader.readUnsigned()
    self = []
    // A corrupt count must not reserve memory the record cannot fill: a read past the record's
    // end throws as soon as the elements run out of bytes.
    reserveCapacity(Int(Swift.min(count, UInt64(reader.remainingBytes))))
    for _ in 0..<count { append(try reader.read(Element.self)) }
  }
}

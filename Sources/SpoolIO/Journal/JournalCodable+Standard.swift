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

/// A zigzag varint.
extension Int: JournalCodable {
  @inlinable @inline(__always)
  public func write(to writer: inout JournalRecordWriter) { writer.writeSigned(Int64(self)) }
  @inlinable
  public init(from reader: inout JournalRecordReader) throws {
    self = try reader.readSignedInteger(Int.self)
  }
}

/// A zigzag varint.
extension Int8: JournalCodable {
  @inlinable
  public func write(to writer: inout JournalRecordWriter) { writer.writeSigned(Int64(self)) }
  @inlinable
  public init(from reader: inout JournalRecordReader) throws {
    self = try reader.readSignedInteger(Int8.self)
  }
}

/// A zigzag varint.
extension Int16: JournalCodable {
  @inlinable
  public func write(to writer: inout JournalRecordWriter) { writer.writeSigned(Int64(self)) }
  @inlinable
  public init(from reader: inout JournalRecordReader) throws {
    self = try reader.readSignedInteger(Int16.self)
  }
}

/// A zigzag varint.
extension Int32: JournalCodable {
  @inlinable
  public func write(to writer: inout JournalRecordWriter) { writer.writeSigned(Int64(self)) }
  @inlinable
  public init(from reader: inout JournalRecordReader) throws {
    self = try reader.readSignedInteger(Int32.self)
  }
}

/// A zigzag varint.
extension Int64: JournalCodable {
  @inlinable
  public func write(to writer: inout JournalRecordWriter) { writer.writeSigned(self) }
  @inlinable
  public init(from reader: inout JournalRecordReader) throws {
    self = try reader.readSigned()
  }
}

/// A varint.
extension UInt: JournalCodable {
  @inlinable
  public func write(to writer: inout JournalRecordWriter) { writer.writeUnsigned(UInt64(self)) }
  @inlinable
  public init(from reader: inout JournalRecordReader) throws {
    self = try reader.readUnsignedInteger(UInt.self)
  }
}

/// One byte, as is.
extension UInt8: JournalCodable {
  @inlinable @inline(__always)
  public func write(to writer: inout JournalRecordWriter) { writer.writeByte(self) }
  @inlinable
  public init(from reader: inout JournalRecordReader) throws {
    self = try reader.readByte()
  }
}

/// A varint.
extension UInt16: JournalCodable {
  @inlinable
  public func write(to writer: inout JournalRecordWriter) { writer.writeUnsigned(UInt64(self)) }
  @inlinable
  public init(from reader: inout JournalRecordReader) throws {
    self = try reader.readUnsignedInteger(UInt16.self)
  }
}

/// A varint.
extension UInt32: JournalCodable {
  @inlinable
  public func write(to writer: inout JournalRecordWriter) { writer.writeUnsigned(UInt64(self)) }
  @inlinable
  public init(from reader: inout JournalRecordReader) throws {
    self = try reader.readUnsignedInteger(UInt32.self)
  }
}

/// A varint.
extension UInt64: JournalCodable {
  @inlinable
  public func write(to writer: inout JournalRecordWriter) { writer.writeUnsigned(self) }
  @inlinable
  public init(from reader: inout JournalRecordReader) throws {
    self = try reader.readUnsigned()
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

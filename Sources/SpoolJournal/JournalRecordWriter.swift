/// Where a ``JournalCodable`` value writes its bytes: the recorder's reused record buffer.
///
/// Every write is a few stores into memory the recorder keeps between records; the buffer grows
/// (one allocation) only when a record is larger than every one before it. Integers are
/// varints (signed ones zigzag-encoded, so small negative numbers stay short), floating-point
/// numbers their bit patterns, strings and byte runs a varint length and the bytes.
///
/// A writer exists only during a recorder's call to ``JournalCodable/write(to:)``; it is
/// non-copyable so that no write can go to a copy that the record never sees.
///
/// ```swift
/// func write(to writer: inout JournalRecordWriter) {
///   writer.write(UInt8(2))       // the case
///   writer.write(order.id)       // an Int
///   writer.write(order.note)     // a String?
/// }
/// ```
public struct JournalRecordWriter: ~Copyable {
  // Budget: a write of a fixed-size value is one capacity check and stores; nothing here may
  // retain, allocate (outside `grow`) or look up metadata, or recording stops being cheap.
  @usableFromInline var pointer: UnsafeMutableRawPointer
  @usableFromInline var count: Int
  @usableFromInline var capacity: Int
  /// Not retained: the recorder owns the buffer and keeps it alive for the whole of the one
  /// call during which this writer exists (see `JournalBytes.withRecordWriter(_:)`).
  private unowned(unsafe) let storage: JournalBytes

  init(appendingTo storage: JournalBytes) {
    self.storage = storage
    pointer = storage.pointer
    count = storage.count
    capacity = storage.capacity
  }

  /// The bytes written to the record so far, including what preceded this value.
  ///
  /// ```swift
  /// let before = writer.byteCount
  /// writer.write("checkout")
  /// print(writer.byteCount - before)  // 9
  /// ```
  public var byteCount: Int { count }

  /// Makes room for `extra` more bytes.
  @inlinable @inline(__always)
  mutating func reserve(_ extra: Int) {
    if count &+ extra > capacity { grow(extra) }
  }

  @usableFromInline
  mutating func grow(_ extra: Int) {
    storage.setCount(count)
    storage.reserve(extra)
    pointer = storage.pointer
    capacity = storage.capacity
  }

  /// Writes `value` with its own ``JournalCodable/write(to:)``: a nested value.
  ///
  /// ```swift
  /// writer.write(entry.amount)
  /// writer.write(entry)  // an adopting struct
  /// ```
  @inlinable @inline(__always)
  public mutating func write<Value: JournalCodable>(_ value: Value) {
    value.write(to: &self)
  }

  /// Writes one byte as is.
  ///
  /// ```swift
  /// writer.writeByte(3)
  /// ```
  @inlinable @inline(__always)
  public mutating func writeByte(_ byte: UInt8) {
    reserve(1)
    pointer.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
    count &+= 1
  }

  /// Writes `value` as a varint: 7 bits a byte, low bits first (1 byte below 128).
  ///
  /// ```swift
  /// writer.writeUnsigned(300)  // 2 bytes
  /// ```
  @inlinable @inline(__always)
  public mutating func writeUnsigned(_ value: UInt64) {
    reserve(10)
    var value = value
    while value >= 0x80 {
      pointer.storeBytes(
        of: UInt8(truncatingIfNeeded: value) | 0x80, toByteOffset: count, as: UInt8.self)
      count &+= 1
      value &>>= 7
    }
    pointer.storeBytes(of: UInt8(truncatingIfNeeded: value), toByteOffset: count, as: UInt8.self)
    count &+= 1
  }

  /// Writes `value` as a zigzag varint (1 byte from -64 to 63).
  ///
  /// ```swift
  /// writer.writeSigned(-3)  // 1 byte
  /// ```
  @inlinable @inline(__always)
  public mutating func writeSigned(_ value: Int64) {
    writeUnsigned(UInt64(bitPattern: (value &<< 1) ^ (value &>> 63)))
  }

  /// Writes `value` little-endian in its full width.
  ///
  /// ```swift
  /// writer.writeFixed(UInt32(0xCAFE))  // 4 bytes
  /// ```
  @inlinable @inline(__always)
  public mutating func writeFixed<T: FixedWidthInteger>(_ value: T) {
    let size = MemoryLayout<T>.size
    reserve(size)
    (pointer + count).storeBytes(of: value.littleEndian, as: T.self)
    count &+= size
  }

  /// Writes `bytes`, preceded by their count (a varint).
  ///
  /// ```swift
  /// writer.writeBytes(digest)  // [UInt8]
  /// ```
  @inlinable
  public mutating func writeBytes(_ bytes: UnsafeRawBufferPointer) {
    writeUnsigned(UInt64(bytes.count))
    guard let base = bytes.baseAddress, bytes.count > 0 else { return }
    reserve(bytes.count)
    (pointer + count).copyMemory(from: base, byteCount: bytes.count)
    count &+= bytes.count
  }

  /// Writes `bytes`, preceded by their count (a varint).
  ///
  /// ```swift
  /// writer.writeBytes([0xDE, 0xAD])
  /// ```
  @inlinable
  public mutating func writeBytes(_ bytes: some Collection<UInt8>) {
    let byteCount = bytes.count
    writeUnsigned(UInt64(byteCount))
    reserve(byteCount)
    for byte in bytes.prefix(byteCount) {
      pointer.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
      count &+= 1
    }
  }
}

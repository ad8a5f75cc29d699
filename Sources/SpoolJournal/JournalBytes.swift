/// A growable run of bytes that the journal's encoder writes into and reuses.
///
/// Its memory is kept between records (``removeAll()`` keeps the capacity), so encoding a
/// record allocates only when a record is larger than every one before it.
///
/// Not thread-safe: each instance has one owner at a time (see its holders).
final class JournalBytes {
  private(set) var pointer: UnsafeMutableRawPointer
  private(set) var capacity: Int
  /// The bytes written so far.
  private(set) var count = 0

  init(capacity: Int = 256) {
    self.capacity = max(capacity, 16)
    pointer = .allocate(byteCount: self.capacity, alignment: 16)
  }

  deinit {
    pointer.deallocate()
  }

  /// Forgets the bytes, keeping the memory.
  func removeAll() { count = 0 }

  /// Forgets the bytes and starts a record of `kind`: the header's
  /// ``JournalFormat/recordOverhead`` bytes are left for ``sealRecord(using:)`` to fill, and
  /// the kind byte follows them. One store of `count`, where appending the three parts would
  /// take three (the capacity, at least 16 bytes, always holds the 13).
  @inline(__always)
  func beginRecord(_ kind: JournalFormat.RecordKind) {
    pointer.storeBytes(
      of: kind.rawValue, toByteOffset: JournalFormat.recordOverhead, as: UInt8.self)
    count = JournalFormat.recordOverhead + 1
  }

  /// Takes `newCount` bytes as written: a ``JournalRecordWriter`` stored them directly.
  func setCount(_ newCount: Int) {
    precondition(newCount <= capacity, "Internal inconsistency: a record past its buffer")
    count = newCount
  }

  /// Cuts the bytes back to the first `newCount`.
  func truncate(to newCount: Int) {
    precondition(newCount <= count, "Internal inconsistency: truncating a journal buffer up")
    count = newCount
  }

  @inline(__always)
  func reserve(_ extra: Int) {
    if count + extra > capacity { grow(to: count + extra) }
  }

  private func grow(to needed: Int) {
    var newCapacity = capacity * 2
    while newCapacity < needed { newCapacity *= 2 }
    let newPointer = UnsafeMutableRawPointer.allocate(byteCount: newCapacity, alignment: 16)
    newPointer.copyMemory(from: pointer, byteCount: count)
    pointer.deallocate()
    pointer = newPointer
    capacity = newCapacity
  }

  @inline(__always)
  func append(_ byte: UInt8) {
    reserve(1)
    pointer.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
    count += 1
  }

  /// Appends `value` little-endian, in its full width.
  @inline(__always)
  func appendFixed<T: FixedWidthInteger>(_ value: T) {
    let size = MemoryLayout<T>.size
    reserve(size)
    (pointer + count).storeBytes(of: value.littleEndian, as: T.self)
    count += size
  }

  /// Overwrites the fixed-width `value` at `offset` (a length or checksum reserved earlier).
  func setFixed<T: FixedWidthInteger>(_ value: T, at offset: Int) {
    precondition(
      offset + MemoryLayout<T>.size <= count, "Internal inconsistency: patching past the end")
    (pointer + offset).storeBytes(of: value.littleEndian, as: T.self)
  }

  /// Appends `value` as a LEB128 varint: 7 bits a byte, low bits first.
  @inline(__always)
  func appendVarint(_ value: UInt64) {
    reserve(10)
    // The end in a local: a store through `pointer` may alias `count`, which the compiler
    // would otherwise load again after every byte.
    var end = count
    var value = value
    while value >= 0x80 {
      pointer.storeBytes(of: UInt8(truncatingIfNeeded: value) | 0x80, toByteOffset: end,
        as: UInt8.self)
      end += 1
      value >>= 7
    }
    pointer.storeBytes(of: UInt8(value), toByteOffset: end, as: UInt8.self)
    count = end + 1
  }

  /// Appends `count` bytes from `source`.
  func append(_ source: UnsafeRawPointer, count byteCount: Int) {
    guard byteCount > 0 else { return }
    reserve(byteCount)
    (pointer + count).copyMemory(from: source, byteCount: byteCount)
    count += byteCount
  }

  /// Appends the UTF-8 of `string`, preceded by its length as a varint.
  func appendString(_ string: String) {
    var string = string
    string.withUTF8 { utf8 in
      appendVarint(UInt64(utf8.count))
      if let base = utf8.baseAddress { append(base, count: utf8.count) }
    }
  }

  /// A copy of the bytes.
  var bytes: [UInt8] {
    [UInt8](UnsafeRawBufferPointer(start: pointer, count: count))
  }
}

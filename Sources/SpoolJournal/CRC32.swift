/// CRC-32 (the IEEE polynomial, reflected, as in zlib and PNG) over journal records.
///
/// Each record of a journal carries the CRC of its payload, and its header the CRC of the
/// header, so a flipped byte anywhere in a record is found before the record is decoded.
/// Eight bytes per step ("slicing by eight"): the eight table lookups of a step do not wait
/// for one another, where one lookup per byte waits for the previous one, so a record's
/// eight-byte header check is one step rather than a chain of eight.
enum CRC32 {
  /// The tables every checksum uses, built once.
  static let shared = Tables()

  /// The CRC-32 of `count` bytes at `bytes`.
  static func checksum(_ bytes: UnsafeRawPointer, count: Int) -> UInt32 {
    shared.checksum(bytes, count: count)
  }

  /// The CRC-32 of `bytes`, without copying them when they are contiguous (a slice of a file).
  static func checksum(_ bytes: some Collection<UInt8>) -> UInt32 {
    let contiguous = bytes.withContiguousStorageIfAvailable { buffer in
      guard let base = buffer.baseAddress else { return UInt32(0) }
      return checksum(UnsafeRawPointer(base), count: buffer.count)
    }
    if let contiguous { return contiguous }
    let array = Array(bytes)
    return array.withUnsafeBytes { buffer in
      guard let base = buffer.baseAddress else { return 0 }
      return checksum(base, count: buffer.count)
    }
  }

  /// Eight lookup tables of 256 entries for the reflected polynomial 0xEDB88320: table 0
  /// advances the CRC by one byte, table `k` by that byte followed by `k` zero bytes.
  ///
  /// A hot path keeps its own copy (one pointer) so that it does not go through the lazy
  /// initialization of ``shared`` for every record.
  // Sendable: the tables are written only in `init`, before the value can be shared, and
  // never freed (``CRC32/shared`` lives as long as the process; copies share its storage),
  // so every later access is a read of memory nobody writes.
  struct Tables: @unchecked Sendable {
    private let base: UnsafePointer<UInt32>

    /// Builds the tables; use ``CRC32/shared`` rather than building more (they are not freed).
    fileprivate init() {
      let tables = UnsafeMutablePointer<UInt32>.allocate(capacity: 8 * 256)
      for index in 0..<256 {
        var value = UInt32(index)
        for _ in 0..<8 {
          value = value & 1 == 1 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1
        }
        tables[index] = value
      }
      for table in 1..<8 {
        for index in 0..<256 {
          let previous = tables[(table - 1) * 256 + index]
          tables[table * 256 + index] = (previous >> 8) ^ tables[Int(previous & 0xFF)]
        }
      }
      base = UnsafePointer(tables)
    }

    @inline(__always)
    private func entry(_ table: Int, _ index: UInt32) -> UInt32 {
      base[table &* 256 &+ Int(index & 0xFF)]
    }

    /// The CRC-32 of `count` bytes at `bytes`: eight bytes per step, then the rest one at a
    /// time.
    @inline(__always)
    func checksum(_ bytes: UnsafeRawPointer, count: Int) -> UInt32 {
      var crc: UInt32 = 0xFFFF_FFFF
      var offset = 0
      while count &- offset >= 8 {
        let low =
          crc ^ UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
        let high = UInt32(
          littleEndian: bytes.loadUnaligned(fromByteOffset: offset &+ 4, as: UInt32.self))
        crc =
          (entry(7, low) ^ entry(6, low >> 8) ^ entry(5, low >> 16) ^ entry(4, low >> 24))
          ^ (entry(3, high) ^ entry(2, high >> 8) ^ entry(1, high >> 16) ^ entry(0, high >> 24))
        offset &+= 8
      }
      while offset < count {
        let byte = bytes.load(fromByteOffset: offset, as: UInt8.self)
        crc = entry(0, crc ^ UInt32(byte)) ^ (crc >> 8)
        offset &+= 1
      }
      return crc ^ 0xFFFF_FFFF
    }
  }
}

/// CRC-32 (the IEEE polynomial, reflected, as in zlib and PNG) over journal records.
///
/// Each record of a journal carries the CRC of its payload, so a flipped byte anywhere in a
/// record is found before the record is decoded. Table-driven, one lookup per byte: a
/// 20-byte action record costs about as much as a cached memory read per byte.
enum CRC32 {
  /// The lookup table for the reflected polynomial 0xEDB88320, computed once.
  static let table: [UInt32] = (0..<256).map { index in
    var value = UInt32(index)
    for _ in 0..<8 {
      value = value & 1 == 1 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1
    }
    return value
  }

  /// The CRC-32 of `count` bytes at `bytes`.
  static func checksum(_ bytes: UnsafeRawPointer, count: Int) -> UInt32 {
    table.withUnsafeBufferPointer { table in
      var crc: UInt32 = 0xFFFF_FFFF
      for offset in 0..<count {
        let byte = bytes.load(fromByteOffset: offset, as: UInt8.self)
        crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
      }
      return crc ^ 0xFFFF_FFFF
    }
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
}

@testable import SpoolJournal
import Testing

extension SpoolJournalTests {
  /// The journal's CRC-32 is the IEEE one (zlib's), whatever the length and alignment of the
  /// bytes, so that journals written by any earlier version still verify.
  @Suite struct CRC32Tests {
    /// The CRC-32 one bit at a time, straight from the polynomial: the definition the
    /// table-driven form must agree with.
    static func bitwise(_ bytes: [UInt8]) -> UInt32 {
      var crc: UInt32 = 0xFFFF_FFFF
      for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
      }
      return crc ^ 0xFFFF_FFFF
    }

    /// The check value of the IEEE CRC-32 (as zlib's `crc32` gives it), and the empty input.
    @Test func knownValues() {
      #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
      #expect(CRC32.checksum([UInt8]()) == 0)
      #expect(CRC32.checksum([UInt8](repeating: 0, count: 32)) == 0x190A_55AD)
    }

    /// Every length from 0 to 80 bytes, at each of the eight alignments, agrees with the
    /// bitwise definition: the check a faster table-driven form must pass too.
    @Test func agreesWithTheBitwiseDefinitionAtEveryLengthAndAlignment() {
      var generator = SystemRandomNumberGenerator()
      let bytes = (0..<96).map { _ in UInt8.random(in: 0...255, using: &generator) }
      bytes.withUnsafeBytes { buffer in
        for start in 0..<8 {
          for count in 0...80 {
            let expected = Self.bitwise(Array(bytes[start..<(start + count)]))
            let actual = CRC32.checksum(buffer.baseAddress! + start, count: count)
            if actual != expected {
              Issue.record("\(count) bytes at offset \(start): \(actual), expected \(expected)")
              return
            }
          }
        }
      }
    }
  }
}

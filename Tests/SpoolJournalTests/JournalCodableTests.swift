import SpoolCore
@testable import SpoolIO
@testable import SpoolJournal
import Testing

/// The bytes `value` writes with its `JournalCodable` conformance.
func journalEncoded<Value: JournalCodable>(_ value: Value) -> [UInt8] {
  let bytes = JournalBytes()
  var writer = JournalRecordWriter(appendingTo: bytes)
  writer.write(value)
  bytes.setCount(writer.byteCount)
  return bytes.bytes
}

/// `Value` read back from `bytes`, which it must take up entirely.
func journalDecoded<Value: JournalCodable>(_: Value.Type, _ bytes: [UInt8]) throws -> Value {
  try JournalRecordReader.read({ try Value(from: &$0) }, from: bytes, in: 0..<bytes.count)
}

extension SpoolJournalTests {
  /// The compact encoding of `JournalCodable` values: every primitive and adopting action
  /// round-trips, sizes are as documented, and bytes that are cut short, left over or
  /// meaningless are errors naming the byte, never a crash.
  @Suite struct JournalCodableTests {
    private func expectRoundTrip<Value: JournalCodable & Equatable>(
      _ value: Value, size: Int? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
      let bytes = journalEncoded(value)
      #expect(try journalDecoded(Value.self, bytes) == value, sourceLocation: sourceLocation)
      if let size { #expect(bytes.count == size, sourceLocation: sourceLocation) }
    }

    @Test func everyPrimitiveRoundTrips() throws {
      for value in [0, 1, -1, 63, -64, 64, .max, .min] as [Int] { try expectRoundTrip(value) }
      try expectRoundTrip(-64, size: 1)
      try expectRoundTrip(64, size: 2)
      try expectRoundTrip(Int.min, size: 10)
      for value in [Int8.min, -1, 0, .max] { try expectRoundTrip(value) }
      for value in [Int16.min, -300, .max] { try expectRoundTrip(value) }
      for value in [Int32.min, 70_000, .max] { try expectRoundTrip(value) }
      for value in [Int64.min, 0, .max] { try expectRoundTrip(value) }
      for value in [UInt.min, 127, .max] { try expectRoundTrip(value) }
      try expectRoundTrip(UInt8(0xFF), size: 1)
      try expectRoundTrip(UInt16.max, size: 3)
      for value in [UInt32.min, .max] { try expectRoundTrip(value) }
      try expectRoundTrip(UInt64(127), size: 1)
      try expectRoundTrip(UInt64.max, size: 10)
      try expectRoundTrip(true, size: 1)
      try expectRoundTrip(false, size: 1)
      for value in [0.0, -0.125, .infinity, .greatestFiniteMagnitude] as [Double] {
        try expectRoundTrip(value, size: 8)
      }
      try expectRoundTrip(Float(3.5), size: 4)
      #expect(try journalDecoded(Double.self, journalEncoded(Double.nan)).isNaN)
      try expectRoundTrip("", size: 1)
      try expectRoundTrip("héllo", size: 7)
      try expectRoundTrip("naïve — ünïcödé ✓")
      try expectRoundTrip(Int?.none, size: 1)
      try expectRoundTrip(Int?.some(5), size: 2)
      try expectRoundTrip(String??.some(nil), size: 2)
      try expectRoundTrip([Int](), size: 1)
      try expectRoundTrip([1, -2, 300], size: 5)
      try expectRoundTrip([["a"], [], ["b", "c"]])
    }

    @Test func rawBytesAndFixedWidthIntegersRoundTrip() throws {
      let bytes = JournalBytes()
      var writer = JournalRecordWriter(appendingTo: bytes)
      writer.writeBytes([0, 0xFF, 0x80])
      writer.writeFixed(UInt32(0xCAFE_F00D))
      writer.writeFixed(Int16(-2))
      [UInt8](repeating: 9, count: 3).withUnsafeBytes { writer.writeBytes($0) }
      writer.writeSigned(-5)
      writer.writeUnsigned(300)
      bytes.setCount(writer.byteCount)
      #expect(bytes.count == 4 + 4 + 2 + 4 + 1 + 2)
      try bytes.bytes.withUnsafeBytes { buffer throws in
        var reader = JournalRecordReader(buffer)
        #expect(try reader.readBytes() == [0, 0xFF, 0x80])
        #expect(try reader.readFixed(UInt32.self) == 0xCAFE_F00D)
        #expect(try reader.readFixed(Int16.self) == -2)
        #expect(try reader.withBytes { [UInt8]($0) } == [9, 9, 9])
        #expect(try reader.readSigned() == -5)
        #expect(try reader.readUnsigned() == 300)
        #expect(reader.remainingBytes == 0)
      }
    }

    @Test func aRecordLargerThanTheBufferGrowsIt() throws {
      let long = String(repeating: "spool ", count: 2_000)
      try expectRoundTrip(long)
      try expectRoundTrip(Tally.Action.label(long))
    }

    @Test(arguments: Tally.everyCase)
    func everyAdoptingActionRoundTrips(action: Tally.Action) throws {
      try expectRoundTrip(action)
    }

    @Test(arguments: Tally.everyCase)
    func everyCutOfAnActionIsAnErrorNotACrash(action: Tally.Action) throws {
      let bytes = journalEncoded(action)
      for length in 0..<bytes.count {
        #expect(throws: JournalReadError.self) {
          _ = try journalDecoded(Tally.Action.self, Array(bytes[0..<length]))
        }
      }
    }

    @Test func aCutShortValueNamesTheByteAndWhatIsMissing() {
      #expect(throws: JournalReadError(
        offset: 1, reason: "the record ends here: 1 more bytes needed, 0 left")
      ) {
        try journalDecoded(Tally.Action.self, [1])
      }
      #expect(throws: JournalReadError(
        offset: 0, reason: "the record ends here: 8 more bytes needed, 3 left")
      ) {
        try journalDecoded(Double.self, [1, 2, 3])
      }
      #expect(throws: JournalReadError(
        offset: 1, reason: "a run of 5 bytes, but only 2 bytes are left in the record")
      ) {
        try journalDecoded(Tally.Action.self, [2, 5, 0x61, 0x62])
      }
    }

    @Test func leftOverBytesAreAnError() {
      #expect(throws: JournalReadError(offset: 1, reason: "2 bytes left after the action")) {
        try journalDecoded(Tally.Action.self, [0, 1, 2])
      }
    }

    @Test func meaninglessBytesAreNamed() {
      #expect(throws: JournalReadError(offset: 1, reason: "unknown Tally.Action case 9")) {
        try journalDecoded(Tally.Action.self, [9])
      }
      #expect(throws: JournalReadError(offset: 0, reason: "300 does not fit Int8")) {
        try journalDecoded(Int8.self, journalEncoded(300))
      }
      #expect(throws: JournalReadError(offset: 0, reason: "2 is not a Bool")) {
        try journalDecoded(Bool.self, [2])
      }
      #expect(throws: JournalReadError(offset: 0, reason: "a string that is not UTF-8")) {
        try journalDecoded(String.self, [2, 0xC3, 0x28])
      }
      #expect(throws: JournalReadError(offset: 0, reason: "a varint longer than 64 bits")) {
        try journalDecoded(UInt64.self, [UInt8](repeating: 0xFF, count: 10) + [1])
      }
      let error = JournalReadError(offset: 3, reason: "unknown case 9")
      #expect(error.description == "byte 3 of the action: unknown case 9")
    }

    @Test func theEncodingIsChosenByTheActionType() {
      #expect(JournalActionEncoding.of(Tally.Action.self) == .journalCodable(layout: 1))
      #expect(JournalActionEncoding.of(Ledger.Action.self) == .codable)
      #expect(!JournalActionEncoding.erased(for: Ledger.Action.self).isCompact)
      #expect(JournalActionEncoding.erased(for: Tally.Action.self).isCompact)
      #expect(JournalActionEncoding.reader(for: Ledger.Action.self) == nil)
    }
  }
}

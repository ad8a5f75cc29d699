@testable import SpoolIO
@testable import SpoolJournal
import Testing

extension SpoolJournalTests {
  @Suite struct JournalValueCodingTests {
    struct Ordered: Encodable {
      var first: Bool
      func encode(to encoder: any Encoder) throws {
        enum Key: String, CodingKey { case a, b }
        var container = encoder.container(keyedBy: Key.self)
        if first {
          try container.encode(1, forKey: .a)
          try container.encode("x", forKey: .b)
        } else {
          try container.encode("x", forKey: .b)
          try container.encode(1, forKey: .a)
        }
      }
    }

    @Test func theStateChecksumIgnoresTheOrderOfKeys() throws {
      #expect(try StateChecksum.of(Ordered(first: true)) == StateChecksum.of(Ordered(first: false)))
      #expect(try StateChecksum.of([1, 2]) != StateChecksum.of([2, 1]))
      #expect(try StateChecksum.of(["a": 1, "b": 2]) == StateChecksum.of(["b": 2, "a": 1]))
      #expect(try StateChecksum.of(["a": 1]) != StateChecksum.of(["a": 2]))
    }

    @Test func nestedContainersCloseWhereTheirValueEnds() throws {
      struct Deep: Codable, Equatable {
        var lists: [[Int?]]
        var maps: [String: [String: Double]]
        var tail: String
      }
      let value = Deep(
        lists: [[1, nil, -3], [], [Int.max]], maps: ["k": ["x": 0.5], "e": [:]], tail: "end")
      let bytes = JournalBytes()
      try JournalValueEncoder(into: bytes).encode(value)
      #expect(try JournalValueDecoder.decode(Deep.self, from: bytes.bytes) == value)
    }

    @Test func aMalformedValueIsADecodingErrorNotACrash() throws {
      let bytes = JournalBytes()
      try JournalValueEncoder(into: bytes).encode(Ledger.Action.note("hello"))
      let encoded = bytes.bytes
      for cut in 0..<encoded.count {
        #expect(throws: DecodingError.self) {
          _ = try JournalValueDecoder.decode(Ledger.Action.self, from: Array(encoded[0..<cut]))
        }
      }
      #expect(throws: DecodingError.self) {
        _ = try JournalValueDecoder.decode(Ledger.Action.self, from: [0xFF])
      }
    }
  }
}

import Foundation

extension Report {
  /// Pretty-printed JSON with sorted keys and ISO 8601 dates, ending in a newline.
  func jsonBytes() -> [UInt8] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .iso8601
    do {
      return Array(try encoder.encode(self)) + [0x0A]
    } catch {
      // Only non-finite doubles fail to encode; the model never produces them (throughput is
      // 0 for a zero duration), so a failure here is a bug.
      preconditionFailure("Internal inconsistency: report is not encodable: \(error)")
    }
  }
}

/// The first byte of each value in a journal's binary encoding: what follows it.
///
/// The encoding is self-describing, so a decoder can skip a value it does not ask for, and
/// streaming, so the encoder never builds a tree: a keyed or unkeyed container is a
/// ``map`` or ``list`` tag, its entries, and an ``end`` tag. A map's entry is its key (a varint
/// length and UTF-8) followed by the value.
enum JournalValueTag: UInt8 {
  /// `nil`: nothing follows.
  case null = 0
  case `false` = 1
  case `true` = 2
  /// A signed integer: a zigzag varint.
  case signed = 3
  /// An unsigned integer: a varint.
  case unsigned = 4
  /// A `Float`: its 4 bits-pattern bytes, little-endian.
  case float = 5
  /// A `Double`: its 8 bit-pattern bytes, little-endian.
  case double = 6
  /// A string: a varint byte count and UTF-8.
  case string = 7
  /// A keyed container: key-value entries up to ``end``.
  case map = 8
  /// An unkeyed container: values up to ``end``.
  case list = 9
  /// Closes the innermost ``map`` or ``list``.
  case end = 10
}

/// The word in an ``ActionQueue``'s `tail`: the next position producers claim, with the
/// capacity of the ring they claim it in and which of the queue's two ring pointers holds that
/// ring, so that one compare-and-swap claims a position in a ring and the ring cannot change
/// under it.
///
/// Layout: bits 0 to 56 the position (incrementing the word increments it), bit 57 the
/// parity, bits 58 to 62 the capacity's code (0 for no ring, `k + 1` for `1 << k` slots). A
/// queue can take 2^57 actions through its ring, about four years at a billion a second.
@usableFromInline
struct RingWord: Equatable {
  @usableFromInline var rawValue: Int

  @inlinable
  init(rawValue: Int) { self.rawValue = rawValue }

  init(position: Int, capacity: Int, parity: Int) {
    precondition(
      position <= Self.positionMask && capacity.nonzeroBitCount <= 1
        && capacity <= Self.largestCapacity && (parity == 0 || parity == 1),
      "Internal inconsistency: a ring word out of range"
    )
    let code = capacity == 0 ? 0 : capacity.trailingZeroBitCount + 1
    rawValue = position | parity << Self.parityShift | code << Self.capacityShift
  }

  /// No ring, parity 0, position 0: a new queue's word.
  @usableFromInline static var empty: RingWord { RingWord(rawValue: 0) }

  @usableFromInline static var parityShift: Int { 57 }
  @usableFromInline static var capacityShift: Int { 58 }
  @usableFromInline static var positionMask: Int { 1 << parityShift - 1 }
  /// The largest ring a word can describe.
  static var largestCapacity: Int { 1 << 30 }

  /// The next position producers claim.
  @inlinable var position: Int { rawValue & Self.positionMask }

  /// Which of the queue's two ring pointers is current: 0 or 1.
  @inlinable var parity: Int { rawValue >> Self.parityShift & 1 }

  /// The ring's capacity in slots (a power of two), 0 when there is no ring.
  @inlinable var capacity: Int { (1 << (rawValue >> Self.capacityShift & 31)) >> 1 }
}

import Histogram

/// The hot-path side of a latency histogram: HdrHistogram's counts array, incremented with
/// HdrHistogram's own index arithmetic, folded into a `Histogram` when a recording is taken.
///
/// Why not `Histogram.record` directly: its overflow-checked index math, uniqueness check on
/// the counts array and min/max tracking in a struct copied to the stack, twice per action,
/// alone broke the recorder's budget of 5% of a 1 µs reducer (`spool bench instrumentation`,
/// `instrumentation-work`). This type does the same bucket arithmetic (lowest value 1,
/// two significant digits: 256 sub-buckets) with wrapping math into a preallocated buffer, and
/// keeps the exact minimum and maximum, so the folded `Histogram` is identical to one that
/// recorded every value (a test checks this).
///
/// Not thread-safe; its owner keeps it under a lock. Memory: about 37 KB, fixed, owned by a
/// ``LatencyCountsArena``.
struct LatencyCounts {
  /// `log2(sub-bucket count / 2)` for two significant digits.
  private static let subBucketHalfCountMagnitude = 7
  private static let subBucketHalfCount = 1 << subBucketHalfCountMagnitude
  private static let subBucketMask: UInt64 = 255
  /// `64 - log2(sub-bucket count)`.
  private static let leadingZeroCountBase = 56
  /// Entries needed for values up to `Histogram.maximumLatency`.
  static let length = index(of: Histogram<UInt64>.maximumLatency) + 1

  /// The counts, then three cells: total, exact minimum, exact maximum. Owned by the
  /// ``LatencyCountsArena`` that made it; a plain pointer so that reading a `LatencyCounts`
  /// out of an array costs no reference counting and its cells no exclusivity checks.
  private let base: UnsafeMutablePointer<UInt64>
  private static var totalCell: Int { length }
  private static var minimumCell: Int { length + 1 }
  private static var maximumCell: Int { length + 2 }
  static var cells: Int { length + 3 }

  fileprivate init(base: UnsafeMutablePointer<UInt64>) {
    self.base = base
    base.initialize(repeating: 0, count: Self.cells)
    base[Self.minimumCell] = .max
  }

  /// Values recorded.
  var total: Int { Int(base[Self.totalCell]) }

  /// HdrHistogram's counts index of `value` (lowest discernible value 1, 256 sub-buckets).
  @inline(__always)
  static func index(of value: UInt64) -> Int {
    let bucket = leadingZeroCountBase &- (value | subBucketMask).leadingZeroBitCount
    let subBucket = Int(truncatingIfNeeded: value &>> UInt64(bucket))
    return ((bucket &+ 1) &<< subBucketHalfCountMagnitude) &+ subBucket &- subBucketHalfCount
  }

  /// The lowest value whose index is `index` (HdrHistogram's `valueFromIndex`).
  static func lowestValue(at index: Int) -> UInt64 {
    var bucket = (index >> subBucketHalfCountMagnitude) - 1
    var subBucket = (index & (subBucketHalfCount - 1)) + subBucketHalfCount
    if bucket < 0 {
      subBucket -= subBucketHalfCount
      bucket = 0
    }
    return UInt64(subBucket) << UInt64(bucket)
  }

  /// Counts `nanoseconds`, clamped to `Histogram.maximumLatency`.
  ///
  /// - Complexity: O(1); about 15 instructions, no allocation, no check but the clamp.
  @inline(__always)
  func record(_ nanoseconds: UInt64) {
    let value = Swift.min(nanoseconds, Histogram<UInt64>.maximumLatency)
    base[Self.index(of: value)] &+= 1
    base[Self.totalCell] &+= 1
    if value < base[Self.minimumCell] { base[Self.minimumCell] = value }
    if value > base[Self.maximumCell] { base[Self.maximumCell] = value }
  }

  /// Forgets every value: the counts, total, minimum and maximum start again from zero.
  ///
  /// - Complexity: O(``cells``): one pass over the buffer (about 37 KB).
  func reset() {
    base.update(repeating: 0, count: Self.cells)
    base[Self.minimumCell] = .max
  }

  /// A `Histogram` holding the same counts, minimum and maximum as if every value had been
  /// recorded into it.
  func histogram() -> Histogram<UInt64> {
    var histogram = Histogram<UInt64>.latency()
    guard total > 0 else { return histogram }
    let minimum = base[Self.minimumCell]
    let maximum = base[Self.maximumCell]
    let minimumIndex = Self.index(of: minimum)
    let maximumIndex = Self.index(of: maximum)
    for index in minimumIndex...maximumIndex {
      let count = base[index]
      guard count > 0 else { continue }
      // Any value of the bucket lands on the same index; the extremes make min and max exact.
      if index == minimumIndex && index == maximumIndex {
        histogram.record(minimum, count: count - 1)
        histogram.record(maximum)
      } else if index == minimumIndex {
        histogram.record(minimum, count: count)
      } else if index == maximumIndex {
        histogram.record(maximum, count: count)
      } else {
        histogram.record(Self.lowestValue(at: index), count: count)
      }
    }
    return histogram
  }
}

/// Allocates ``LatencyCounts`` and frees them all when it goes away.
final class LatencyCountsArena {
  // Touched only when a case is first seen and in deinit; the recorder's lock protects it.
  private var buffers: [UnsafeMutablePointer<UInt64>] = []

  init() {}

  /// New zeroed counts, valid as long as this arena.
  func make() -> LatencyCounts {
    let base = UnsafeMutablePointer<UInt64>.allocate(capacity: LatencyCounts.cells)
    buffers.append(base)
    return LatencyCounts(base: base)
  }

  deinit {
    for base in buffers { base.deallocate() }
  }
}

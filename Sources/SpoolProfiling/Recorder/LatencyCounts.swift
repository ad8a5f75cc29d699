import Histogram
import Synchronization

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
/// Single writer: one thread records into a `LatencyCounts` at a time (its owner's lock, or
/// the thread that owns the ``ThreadCells`` it lives in). The cells are `Atomic`s written with
/// relaxed loads and stores (plain moves on x86-64 and ARM64), so a reader on another thread
/// sees whole values; ``histogram()`` tolerates a reading taken while the writer runs (see
/// there). Memory: about 37 KB, fixed, owned by a ``LatencyCountsArena`` or a ``ThreadCells``.
struct LatencyCounts {
  /// `log2(sub-bucket count / 2)` for two significant digits.
  private static let subBucketHalfCountMagnitude = 7
  private static let subBucketHalfCount = 1 << subBucketHalfCountMagnitude
  private static let subBucketMask: UInt64 = 255
  /// `64 - log2(sub-bucket count)`.
  private static let leadingZeroCountBase = 56
  /// Entries needed for values up to `Histogram.maximumLatency`:
  /// `index(of: Histogram<UInt64>.maximumLatency) + 1` (a test checks it). A literal, not a
  /// lazy global, whose every read on the hot path would call `swift_once`.
  static var length: Int { 4_562 }

  /// The counts, then two cells: the exact minimum (stored inverted, `~minimum`, so that
  /// zeroed cells are empty counts) and the exact maximum. No total: it is the sum of the
  /// counts, which every reader adds up anyway, so the hot path does not keep it. Not owned: a
  /// plain pointer so that reading a `LatencyCounts` costs no reference counting and its cells
  /// no exclusivity checks.
  private let base: UnsafeMutablePointer<Atomic<UInt64>>
  private static var invertedMinimumCell: Int { length }
  private static var maximumCell: Int { length + 1 }
  static var cells: Int { length + 2 }

  /// Counts over `cells` cells at `base`, which must hold zeros or counts.
  init(base: UnsafeMutablePointer<Atomic<UInt64>>) {
    self.base = base
  }

  /// Values recorded: the sum of the counts.
  ///
  /// - Complexity: O(``length``).
  var total: Int {
    var total: UInt64 = 0
    for index in 0..<Self.length { total &+= load(index) }
    return Int(total)
  }

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
    ThreadCells.add(1, to: base + Self.index(of: value))
    if ~value > load(Self.invertedMinimumCell) { store(~value, Self.invertedMinimumCell) }
    if value > load(Self.maximumCell) { store(value, Self.maximumCell) }
  }

  @inline(__always)
  private func load(_ cell: Int) -> UInt64 { base[cell].load(ordering: .relaxed) }

  @inline(__always)
  private func store(_ value: UInt64, _ cell: Int) { base[cell].store(value, ordering: .relaxed) }

  /// Adds the counts of `other` (which any thread may be writing) to these. The caller owns
  /// these counts.
  ///
  /// - Complexity: O(``cells``).
  func add(_ other: LatencyCounts) {
    for index in 0..<Self.length {
      let count = other.load(index)
      if count > 0 { ThreadCells.add(count, to: base + index) }
    }
    store(Swift.max(load(Self.invertedMinimumCell), other.load(Self.invertedMinimumCell)),
      Self.invertedMinimumCell)
    store(Swift.max(load(Self.maximumCell), other.load(Self.maximumCell)), Self.maximumCell)
  }

  /// Forgets every value: the counts, minimum and maximum start again from zero.
  ///
  /// - Complexity: O(``cells``): one pass over the buffer (about 37 KB).
  func reset() {
    for index in 0..<Self.cells { store(0, index) }
  }

  /// A `Histogram` holding the same counts, minimum and maximum as if every value had been
  /// recorded into it.
  ///
  /// Every value recorded before this call happened-before it is in the result. Read while
  /// the writer records, it may also hold some of the values being recorded; its minimum and
  /// maximum then stay within the buckets it counted.
  func histogram() -> Histogram<UInt64> {
    var histogram = Histogram<UInt64>.latency()
    var first = -1
    var last = -1
    for index in 0..<Self.length where load(index) > 0 {
      if first < 0 { first = index }
      last = index
    }
    guard first >= 0 else { return histogram }
    // Exact when every recorded value was seen; otherwise the bounds of the counted buckets.
    var minimum = ~load(Self.invertedMinimumCell)
    if Self.index(of: minimum) != first { minimum = Self.lowestValue(at: first) }
    var maximum = load(Self.maximumCell)
    if Self.index(of: maximum) != last { maximum = Self.lowestValue(at: last) }
    for index in first...last {
      let count = load(index)
      guard count > 0 else { continue }
      // Any value of the bucket lands on the same index; the extremes make min and max exact.
      if index == first && index == last {
        if count > 1 { histogram.record(minimum, count: count - 1) }
        histogram.record(maximum)
      } else if index == first {
        histogram.record(minimum, count: count)
      } else if index == last {
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
  private var buffers: [UnsafeMutablePointer<Atomic<UInt64>>] = []

  init() {}

  /// New zeroed counts, valid as long as this arena.
  func make() -> LatencyCounts {
    let base = UnsafeMutablePointer<Atomic<UInt64>>.allocate(capacity: LatencyCounts.cells)
    for index in 0..<LatencyCounts.cells { (base + index).initialize(to: Atomic(0)) }
    buffers.append(base)
    return LatencyCounts(base: base)
  }

  deinit {
    for base in buffers {
      base.deinitialize(count: LatencyCounts.cells)
      base.deallocate()
    }
  }
}

/// The bucket counts of ``MetricsInstrumentation`` in histogram recording that are not yet
/// published, per action case slot: for queue wait and for reduce time, a count per bucket
/// (the last one `+Inf`) and a sum in nanoseconds.
///
/// Counting touches only these flat arrays, so that an action allocates nothing once its case
/// has been seen. Not thread-safe: it lives in the instrumentation's `Mutex`.
struct PendingHistograms {
  /// The two histograms of an action case.
  enum Kind: Int, CaseIterable {
    case queueWait = 0
    case reduce = 1
  }

  /// Upper bounds in nanoseconds, strictly increasing.
  let bounds: [UInt64]
  /// Per slot, per kind, `bounds.count + 1` counts; unpublished ones only.
  private var counts: [UInt64] = []
  /// Per slot, per kind, the sum of the counted times in nanoseconds.
  private var sums: [UInt64] = []
  /// Whether a slot has counts since the last `take`, and those slots in order of first count.
  private var isPending: [Bool] = []
  private var pendingSlots: [Int] = []

  init(bounds: [UInt64]) {
    self.bounds = bounds
  }

  var bucketsPerKind: Int { bounds.count + 1 }

  /// Counts one action of case `slot`.
  ///
  /// - Returns: Whether nothing was pending before: the caller then schedules a publication.
  mutating func count(slot: Int, queueWait: UInt64, reduce: UInt64) -> Bool {
    if slot >= isPending.count { grow(toHold: slot) }
    let wasEmpty = pendingSlots.isEmpty
    if !isPending[slot] {
      isPending[slot] = true
      pendingSlots.append(slot)
    }
    let base = slot * 2 * bucketsPerKind
    counts[base + bucket(of: queueWait)] &+= 1
    counts[base + bucketsPerKind + bucket(of: reduce)] &+= 1
    sums[slot * 2] &+= queueWait
    sums[slot * 2 + 1] &+= reduce
    return wasEmpty
  }

  /// The index of the first bucket whose bound `nanoseconds` does not exceed; `bounds.count`
  /// (`+Inf`) past the last.
  @inline(__always)
  func bucket(of nanoseconds: UInt64) -> Int {
    var index = 0
    while index < bounds.count, nanoseconds > bounds[index] { index += 1 }
    return index
  }

  /// What one case counted since the last `take`, for one kind.
  struct Counts {
    /// Per bucket, not cumulative; the last is `+Inf`.
    var buckets: ArraySlice<UInt64>
    var sumNanoseconds: UInt64
    var total: UInt64 { buckets.reduce(0, &+) }
  }

  /// Hands out every pending count, by slot, and starts over from zero.
  mutating func take() -> [(slot: Int, queueWait: Counts, reduce: Counts)] {
    let taken = pendingSlots.map { slot in
      let base = slot * 2 * bucketsPerKind
      return (
        slot: slot,
        queueWait: Counts(
          buckets: counts[base..<base + bucketsPerKind], sumNanoseconds: sums[slot * 2]),
        reduce: Counts(
          buckets: counts[base + bucketsPerKind..<base + 2 * bucketsPerKind],
          sumNanoseconds: sums[slot * 2 + 1])
      )
    }
    for slot in pendingSlots {
      let base = slot * 2 * bucketsPerKind
      for index in base..<base + 2 * bucketsPerKind { counts[index] = 0 }
      sums[slot * 2] = 0
      sums[slot * 2 + 1] = 0
      isPending[slot] = false
    }
    pendingSlots.removeAll(keepingCapacity: true)
    return taken
  }

  private mutating func grow(toHold slot: Int) {
    let slots = slot + 1
    counts += repeatElement(0, count: slots * 2 * bucketsPerKind - counts.count)
    sums += repeatElement(0, count: slots * 2 - sums.count)
    isPending += repeatElement(false, count: slots - isPending.count)
  }
}

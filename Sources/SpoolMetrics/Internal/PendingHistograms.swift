import SpoolProfiling

/// The histogram counts of ``MetricsInstrumentation`` in histogram recording: every thread's
/// cells (laid out as ``ThreadHistograms`` says), and what has been published of their sum,
/// so that a publication hands out what was counted since the last one.
///
/// Not thread-safe: it lives in the instrumentation's `Mutex`. The threads record into their
/// own storage without the lock; only finding or growing that storage takes it.
struct PendingHistograms {
  /// Upper bounds in nanoseconds, strictly increasing.
  let bounds: [UInt64]
  let bucketsPerKind: Int
  /// Every thread's cells; freed by ``deallocate()``.
  private var threads: ThreadCellsRegistry
  /// Per slot, as the cells are laid out, the totals over all threads already published.
  private var published: [UInt64] = []

  init(bounds: [UInt64], topSlotCount: Int) {
    self.bounds = bounds
    self.bucketsPerKind = bounds.count + 1
    self.threads = ThreadCellsRegistry(
      stride: ThreadHistograms.stride(bucketsPerKind: bounds.count + 1), ownCells: 0,
      topSlotCount: topSlotCount, minimumSlots: 4)
  }

  /// The calling thread's cells, made on its first action, with room for `slot`.
  mutating func currentThreadCellsLocked(holding slot: Int) -> ThreadCells {
    threads.currentThreadCellsLocked(holding: slot)
  }

  /// What one case counted since the last `take`, for one kind.
  struct Counts {
    /// Per bucket, not cumulative; the last is `+Inf`.
    var buckets: ArraySlice<UInt64>
    var sumNanoseconds: UInt64
    var total: UInt64 { buckets.reduce(0, &+) }
  }

  /// Hands out, per slot that counted anything since the last call, what it counted.
  ///
  /// - Parameter storeUntimed: Per slot, the untimed actions the stores counted in cells of
  ///   their own since they were made (``StoreCaseCountsRegistry``): added to the threads'
  ///   untimed counts, and handed out as they are.
  ///
  /// A count recorded while this runs is handed out now or by the next call, never twice and
  /// never lost: cells only grow (and `storeUntimed` with them), and this publishes the
  /// difference from what it read before.
  mutating func takeLocked(storeUntimed: [UInt64]) -> [
    (slot: Int, queueWait: Counts, reduce: Counts, untimed: UInt64)
  ] {
    var totals: [UInt64] = []
    for thread in threads.threads {
      ThreadHistograms.addCountsLocked(of: thread, to: &totals, bucketsPerKind: bucketsPerKind)
    }
    let stride = ThreadHistograms.stride(bucketsPerKind: bucketsPerKind)
    if totals.count < storeUntimed.count * stride {
      totals += repeatElement(0, count: storeUntimed.count * stride - totals.count)
    }
    for (slot, count) in storeUntimed.enumerated() { totals[slot * stride + stride - 1] &+= count }
    if published.count < totals.count {
      published += repeatElement(0, count: totals.count - published.count)
    }
    var taken: [(slot: Int, queueWait: Counts, reduce: Counts, untimed: UInt64)] = []
    for slot in 0..<totals.count / stride {
      let base = slot * stride
      var delta = [UInt64](repeating: 0, count: stride)
      var counted = false
      for index in 0..<stride {
        delta[index] = totals[base + index] &- published[base + index]
        published[base + index] = totals[base + index]
        // A sum that caught up with counts published before is published too.
        if delta[index] != 0 { counted = true }
      }
      guard counted else { continue }
      func counts(_ first: Int) -> Counts {
        Counts(
          buckets: delta[first..<first + bucketsPerKind],
          sumNanoseconds: delta[first + bucketsPerKind])
      }
      taken.append(
        (
          slot: slot, queueWait: counts(0), reduce: counts(bucketsPerKind + 1),
          untimed: delta[stride - 1]
        ))
    }
    return taken
  }

  /// The index of the first bucket whose bound `nanoseconds` does not exceed; `bounds.count`
  /// (`+Inf`) past the last.
  @inline(__always)
  static func bucket(of nanoseconds: UInt64, in bounds: [UInt64]) -> Int {
    var index = 0
    while index < bounds.count, nanoseconds > bounds[index] { index += 1 }
    return index
  }

  /// Frees every thread's storage; no thread may record into it afterwards.
  mutating func deallocate() {
    threads.deallocate()
  }
}

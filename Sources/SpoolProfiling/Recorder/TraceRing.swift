/// A fixed-capacity ring of the most recent timing samples, for the trace view.
///
/// Preallocated: appending never allocates. Not thread-safe; its owner keeps it under a lock.
struct TraceRing {
  /// One sample: a slot (action case or signpost name) and up to three timestamps.
  struct Sample {
    var slot: Int32
    var tag: UInt8
    var first: UInt64
    var second: UInt64
    var third: UInt64
  }

  private var samples: [Sample]
  private var next = 0
  /// Samples appended since creation, including the overwritten ones.
  private(set) var appended = 0

  /// Creates a ring that keeps the last `capacity` samples (none when `capacity` is 0).
  init(capacity: Int) {
    samples = Array(
      repeating: Sample(slot: 0, tag: 0, first: 0, second: 0, third: 0),
      count: Swift.max(0, capacity))
  }

  /// Appends a sample, overwriting the oldest when full.
  ///
  /// - Complexity: O(1); no allocation.
  @inline(__always)
  mutating func append(_ sample: Sample) {
    guard !samples.isEmpty else { return }
    samples[next] = sample
    next = next + 1 == samples.count ? 0 : next + 1
    appended &+= 1
  }

  /// The samples kept, oldest first.
  var ordered: [Sample] {
    if appended < samples.count { return Array(samples[..<next]) }
    return Array(samples[next...] + samples[..<next])
  }
}

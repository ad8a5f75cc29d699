/// A fixed-capacity ring of the most recent timing samples, for the trace view.
///
/// Preallocated: appending never allocates, and writes straight into the buffer (an `Array`
/// here added a uniqueness and a bounds check to every append, several times the cost of the
/// write). Not thread-safe; its owner keeps it under a lock.
struct TraceRing {
  /// One sample: a slot (action case or signpost name) and up to three timestamps.
  struct Sample {
    var slot: Int32
    var tag: UInt8
    var first: UInt64
    var second: UInt64
    var third: UInt64
  }

  /// Owns the samples' memory; freed with the ring.
  private final class Storage {
    let base: UnsafeMutablePointer<Sample>
    let capacity: Int

    init(capacity: Int) {
      self.capacity = capacity
      base = .allocate(capacity: Swift.max(capacity, 1))
      base.initialize(
        repeating: Sample(slot: 0, tag: 0, first: 0, second: 0, third: 0),
        count: Swift.max(capacity, 1))
    }

    deinit {
      base.deallocate()
    }
  }

  private let storage: Storage
  private var next = 0
  /// Samples appended since creation, including the overwritten ones.
  private(set) var appended = 0

  /// Creates a ring that keeps the last `capacity` samples (none when `capacity` is 0).
  init(capacity: Int) {
    storage = Storage(capacity: Swift.max(0, capacity))
  }

  /// Appends a sample, overwriting the oldest when full.
  ///
  /// - Complexity: O(1); no allocation.
  @inline(__always)
  mutating func append(_ sample: Sample) {
    let capacity = storage.capacity
    guard capacity > 0 else { return }
    storage.base[next] = sample
    next = next + 1 == capacity ? 0 : next + 1
    appended &+= 1
  }

  /// The samples kept, oldest first.
  var ordered: [Sample] {
    let all = UnsafeBufferPointer(start: storage.base, count: storage.capacity)
    if appended < storage.capacity { return Array(all[..<next]) }
    return Array(all[next...]) + Array(all[..<next])
  }
}

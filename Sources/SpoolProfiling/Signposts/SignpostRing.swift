/// The preallocated ring of a ``Signposter``'s records; not thread-safe (the signposter locks).
struct SignpostRing {
  struct Record {
    var name: StaticString
    /// A name made at run time, which replaces `name` when set: the action cases of
    /// `signpost(_:into:)`. Made once per case, so a record only retains it.
    var label: String? = nil
    var thread: UInt
    var start: UInt64
    var end: UInt64
    var kind: TraceInterval.Kind
  }

  let capacity: Int
  private var records: [Record]
  private var next = 0
  private var appended = 0

  init(capacity: Int) {
    self.capacity = Swift.max(0, capacity)
    records = Array(
      repeating: Record(name: "", thread: 0, start: 0, end: 0, kind: .interval),
      count: self.capacity)
  }

  /// - Complexity: O(1); no allocation.
  mutating func append(_ record: Record) {
    guard capacity > 0 else { return }
    records[next] = record
    next = next + 1 == capacity ? 0 : next + 1
    appended &+= 1
  }

  func intervals() -> [TraceInterval] {
    let kept =
      appended < capacity ? Array(records[..<next]) : Array(records[next...] + records[..<next])
    var threads: [UInt: Int] = [:]
    return kept.map { record in
      let thread = threads[record.thread] ?? (threads.count + 1)
      threads[record.thread] = thread
      return TraceInterval(
        name: record.label ?? record.name.description, track: "thread \(thread)",
        kind: record.kind, startNanoseconds: record.start,
        durationNanoseconds: record.end &- Swift.min(record.start, record.end))
    }
  }
}

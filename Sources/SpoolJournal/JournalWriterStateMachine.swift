/// The queue between a journal recorder and the one task that writes its chunks, as a value
/// type that says what to do: testable without I/O or timing.
///
/// Invariants: at most one drainer runs (`isDraining`); chunks are written in the order they
/// were submitted; after a failure, later chunks are dropped (counted) rather than written past
/// a gap; waiters are resumed only when the queue is empty and no drainer runs.
struct JournalWriterStateMachine<Waiter> {
  private(set) var queue: [JournalChunk] = []
  private(set) var free: [JournalChunk] = []
  private(set) var isDraining = false
  private(set) var waiters: [Waiter] = []
  /// The first write failure; nothing is written after it.
  private(set) var failure: (any Error)?
  /// Bytes of chunks dropped after a failure.
  private(set) var droppedBytes = 0
  /// The most chunks kept for reuse: enough for a recorder that fills one while one is written.
  let freeLimit = 4

  enum SubmitAction {
    case none
    /// Start the (single) drainer.
    case startDrainer
  }

  /// Queues `chunk`; returns what to do, and a chunk to fill next if one is free.
  mutating func submit(_ chunk: JournalChunk) -> (SubmitAction, JournalChunk?) {
    let reuse = free.popLast()
    if failure != nil {
      droppedBytes += chunk.count
      recycle(chunk)
      return (.none, reuse)
    }
    queue.append(chunk)
    if isDraining { return (.none, reuse) }
    isDraining = true
    return (.startDrainer, reuse)
  }

  enum NextAction {
    /// Write this chunk.
    case write(JournalChunk)
    /// Nothing left: the drainer stops; resume these waiters.
    case stop([Waiter])
  }

  /// Called by the drainer for its next chunk.
  mutating func next() -> NextAction {
    guard isDraining else {
      preconditionFailure("Internal inconsistency: a journal drainer runs while none should")
    }
    if !queue.isEmpty { return .write(queue.removeFirst()) }
    isDraining = false
    defer { waiters = [] }
    return .stop(waiters)
  }

  /// Called by the drainer after writing `chunk` (with `error` if the write failed).
  mutating func written(_ chunk: JournalChunk, error: (any Error)?) {
    if let error, failure == nil {
      failure = error
      droppedBytes += queue.reduce(0) { $0 + $1.count }
      for queued in queue { recycle(queued) }
      queue.removeAll()
    }
    recycle(chunk)
  }

  /// Whether `waiter` must wait (a drainer runs); if so it is kept until the queue is empty.
  mutating func waitUntilIdle(_ waiter: Waiter) -> Bool {
    guard isDraining else { return false }
    waiters.append(waiter)
    return true
  }

  private mutating func recycle(_ chunk: JournalChunk) {
    chunk.count = 0
    if free.count < freeLimit { free.append(chunk) }
  }
}

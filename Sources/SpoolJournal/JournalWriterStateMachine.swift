/// The queue between a journal recorder and the one task that writes its chunks, as a value
/// type that says what to do: testable without I/O or timing.
///
/// Invariants: at most one drainer runs (`isDraining`); chunks are written in the order they
/// were submitted; after a failure, later chunks are dropped (counted) rather than written past
/// a gap; waiters are resumed only when the queue is empty and no drainer runs.
///
/// Durability (group commit): a durable waiter waits until the first `through` chunks are
/// written and synced; `through` may count the chunk the recorder is still filling (one past
/// `submitted`), which the drainer collects from the recorder before it syncs, so that waiters
/// that arrive during a sync add no chunk, and no write, of their own. The drainer syncs only
/// when its queue is empty and a waiter needs it, once for every waiter present then: `synced`
/// never passes `written`, and a waiter is resumed with success only when `synced >= through`,
/// with the failure otherwise.
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
  /// Chunks submitted, written, and written and then synced, since the start.
  private(set) var submitted = 0
  private(set) var writtenCount = 0
  private(set) var synced = 0
  /// `submitted` when the drainer was last sent to collect, until it has no more to collect.
  private var collectedFrom: Int?
  /// Syncs that succeeded for durable waiters: actions acknowledged per sync is what group
  /// commit buys.
  private(set) var syncs = 0
  /// Waiters for durability, by ID (for cancellation), with the chunk count they need synced.
  private(set) var durableWaiters: [(id: UInt64, through: Int, waiter: Waiter)] = []

  enum SubmitAction {
    case none
    /// Start the (single) drainer.
    case startDrainer
  }

  /// Queues `chunk`; returns what to do, and a chunk to fill next if one is free.
  mutating func submit(_ chunk: JournalChunk) -> (SubmitAction, JournalChunk?) {
    let reuse = free.popLast()
    submitted += 1
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
    /// Hand over the chunk the recorder is filling (a durable waiter counts on it), then ask
    /// again. A waiter counts on that chunk only while it holds bytes (`through` is computed
    /// under the recorder's lock), and a collection submits whatever it holds, so repeated
    /// collections always advance `submitted`: a waiter that arrives during one, counting on
    /// the next chunk, gets another, never a clamp to chunks that lack its records.
    case collect
    /// Sync the file: every chunk up to `through` is written; then call `synced`.
    case sync(through: Int)
    /// Nothing left: the drainer stops; resume these waiters.
    case stop([Waiter])
  }

  /// Called by the drainer for its next chunk.
  mutating func next() -> NextAction {
    guard isDraining else {
      preconditionFailure("Internal inconsistency: a journal drainer runs while none should")
    }
    if !queue.isEmpty { return .write(queue.removeFirst()) }
    if failure == nil, durableWaiters.contains(where: { $0.through > submitted }) {
      // A collection that submitted nothing would be asked for again and again.
      guard collectedFrom != submitted else {
        preconditionFailure(
          "Internal inconsistency: a durable waiter counts on a chunk the recorder does not hold")
      }
      collectedFrom = submitted
      return .collect
    }
    collectedFrom = nil
    if failure == nil, durableWaiters.contains(where: { $0.through > synced }) {
      return .sync(through: writtenCount)
    }
    isDraining = false
    // Durable waiters left here are satisfied (no sync was needed) or failed: resume all.
    let resumed = waiters + durableWaiters.map(\.waiter)
    waiters = []
    durableWaiters = []
    return .stop(resumed)
  }

  /// Called by the drainer after a sync through `through` chunks (with `error` if it failed);
  /// returns the durable waiters it satisfied, or all of them after a failure.
  mutating func synced(through: Int, error: (any Error)?) -> [Waiter] {
    if let error {
      fail(error)
      defer { durableWaiters = [] }
      return durableWaiters.map(\.waiter)
    }
    synced = max(synced, through)
    syncs += 1
    let ready = durableWaiters.filter { $0.through <= synced }.map(\.waiter)
    durableWaiters.removeAll { $0.through <= synced }
    return ready
  }

  enum DurableAction {
    /// Already durable, or failed: do not wait.
    case ready
    /// Wait; a drainer runs.
    case wait
    /// Wait, and start the (single) drainer.
    case waitAndStartDrainer
  }

  /// Whether `waiter` must wait until the first `through` chunks are synced.
  mutating func waitUntilDurable(through: Int, id: UInt64, _ waiter: Waiter) -> DurableAction {
    if failure != nil || synced >= through { return .ready }
    durableWaiters.append((id, through, waiter))
    if isDraining { return .wait }
    isDraining = true
    return .waitAndStartDrainer
  }

  /// Removes the durable waiter `id` (its task was cancelled); returns it unless it was
  /// resumed already.
  mutating func cancelDurable(id: UInt64) -> Waiter? {
    guard let index = durableWaiters.firstIndex(where: { $0.id == id }) else { return nil }
    return durableWaiters.remove(at: index).waiter
  }

  /// Called by the drainer after writing `chunk` (with `error` if the write failed).
  mutating func written(_ chunk: JournalChunk, error: (any Error)?) {
    if let error {
      fail(error)
    } else {
      writtenCount += 1
    }
    recycle(chunk)
  }

  /// Keeps the first failure and drops the queued chunks: nothing is written past a gap.
  private mutating func fail(_ error: any Error) {
    guard failure == nil else { return }
    failure = error
    droppedBytes += queue.reduce(0) { $0 + $1.count }
    for queued in queue { recycle(queued) }
    queue.removeAll()
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

/// The rows of many entities waiting to be committed, and the tasks waiting for them: what
/// makes group commit. Producers append rows and wait for their numbers; one drainer takes
/// every row present (up to a limit), commits them in one statement, and completes them.
///
/// The state machine only decides; ``PostgresCommitQueue`` carries out what it returns, with
/// its lock released. It is generic over what a waiting task and the waiting drainer are
/// (continuations in the queue, plain values in its tests), so that every transition can be
/// tested synchronously.
///
/// Invariants: `completedThrough <= lastNumber`; every stored waiter waits for a number above
/// `completedThrough` and at most `lastNumber`; once the drainer stopped, every number given is
/// completed and no waiter is stored.
struct PostgresCommitQueueStateMachine<Waiter, Drainer> {
  /// Whether the queue takes rows, and what its drainer does.
  private enum Phase {
    /// Rows are taken; the drainer is parked here while there is none to commit.
    case open(parkedDrainer: Drainer?)
    /// No row is taken; the drainer finishes the commit in flight, if any, then stops.
    case closing(PostgresJournalError)
    /// The drainer stopped: every row given a number is completed.
    case stopped(PostgresJournalError)
  }

  private var phase: Phase = .open(parkedDrainer: nil)
  private var pending: [PostgresJournalRow] = []
  private var nextNumber: UInt64 = 1
  /// Every row numbered up to this one is completed (committed, refused or failed).
  private(set) var completedThrough: UInt64 = 0
  /// The waiting tasks, by the ID their caller chose, with the row number each waits for.
  private var waiters: [UInt64: (through: UInt64, waiter: Waiter)] = [:]
  let maxRows: Int

  init(maxRows: Int) {
    precondition(maxRows > 0, "Internal inconsistency: a commit queue of \(maxRows) rows")
    self.maxRows = maxRows
  }

  /// The last number given to a row (0 before the first).
  var lastNumber: UInt64 { nextNumber - 1 }

  /// Whether the queue refuses rows (closed, whether or not its drainer stopped).
  var isClosed: Bool {
    if case .open = phase { return false }
    return true
  }

  /// Tasks waiting, for the tests.
  var waiterCount: Int { waiters.count }

  /// Rows queued and not yet taken by a commit.
  var pendingCount: Int { pending.count }

  // MARK: - Rows

  /// Appends a row; returns its number (`nil` when the queue is closed: the row is not
  /// queued), and the parked drainer to resume with a batch, if there was one.
  mutating func append(
    entity: String, sequenceNumber: Int64, epoch: Int64, action: [UInt8],
    link: PostgresEntityLink
  ) -> (number: UInt64?, resume: (Drainer, [PostgresJournalRow])?) {
    guard case .open(let parked) = phase else { return (nil, nil) }
    let number = nextNumber
    nextNumber += 1
    pending.append(
      PostgresJournalRow(
        entity: entity, sequenceNumber: sequenceNumber, epoch: epoch, action: action, link: link,
        number: number))
    guard let parked else { return (number, nil) }
    phase = .open(parkedDrainer: nil)
    return (number, (parked, takeBatch()))
  }

  private mutating func takeBatch() -> [PostgresJournalRow] {
    if pending.count <= maxRows {
      defer { pending.removeAll(keepingCapacity: true) }
      return pending
    }
    let batch = Array(pending.prefix(maxRows))
    pending.removeFirst(maxRows)
    return batch
  }

  // MARK: - The drainer

  enum NextBatch {
    /// Commit these rows, then call ``complete(through:)`` with the last one's number.
    case batch([PostgresJournalRow])
    /// The drainer is parked: ``append(entity:sequenceNumber:epoch:action:link:)`` or
    /// ``close(_:)`` hands it back.
    case wait
    /// The queue is closed and empty: call ``drainerStopped()``.
    case stop
  }

  /// The drainer asks for rows: a batch, or it is parked until a row arrives, or it stops.
  mutating func nextBatch(_ drainer: Drainer) -> NextBatch {
    if !pending.isEmpty { return .batch(takeBatch()) }
    switch phase {
    case .open(let parked):
      precondition(parked == nil, "Internal inconsistency: two drainers")
      phase = .open(parkedDrainer: drainer)
      return .wait
    case .closing:
      return .stop
    case .stopped:
      preconditionFailure("Internal inconsistency: a drainer asks for rows after it stopped")
    }
  }

  /// Rows up to `number` are completed (the drainer's commit of them ended, whatever its
  /// outcome, which their links hold): returns the waiters to resume.
  mutating func complete(through number: UInt64) -> [Waiter] {
    precondition(
      number <= lastNumber,
      "Internal inconsistency: row \(number) completed, only \(lastNumber) were given")
    if case .stopped = phase {
      preconditionFailure("Internal inconsistency: rows completed after the drainer stopped")
    }
    guard number > completedThrough else { return [] }
    completedThrough = number
    return resumeCompleted()
  }

  /// The drainer stopped after ``nextBatch(_:)`` said `.stop`: every row given a number is
  /// completed (those never committed were failed by ``close(_:)``'s caller); returns every
  /// waiter.
  mutating func drainerStopped() -> [Waiter] {
    guard case .closing(let error) = phase, pending.isEmpty else {
      preconditionFailure("Internal inconsistency: the drainer stopped before the queue closed")
    }
    phase = .stopped(error)
    completedThrough = lastNumber
    return resumeCompleted()
  }

  private mutating func resumeCompleted() -> [Waiter] {
    var ready: [Waiter] = []
    for (id, entry) in waiters where entry.through <= completedThrough {
      ready.append(entry.waiter)
      waiters[id] = nil
    }
    return ready
  }

  // MARK: - Waiting tasks

  enum Wait {
    /// The rows are completed already: resume the waiter at once.
    case resumeNow
    /// The waiter is stored; ``complete(through:)``, ``drainerStopped()`` or
    /// ``cancelWait(_:)`` hands it back.
    case stored
  }

  /// A task, known by `id` (unique among the waiters, chosen by the caller), waits until rows
  /// up to `number` are completed.
  mutating func wait(id: UInt64, through number: UInt64, _ waiter: Waiter) -> Wait {
    precondition(
      number <= lastNumber,
      "Internal inconsistency: a wait for row \(number), only \(lastNumber) were given")
    // Not at once when the queue is closed: a commit in flight may still hold the rows.
    if number <= completedThrough { return .resumeNow }
    precondition(waiters[id] == nil, "Internal inconsistency: two waiters with ID \(id)")
    waiters[id] = (number, waiter)
    return .stored
  }

  /// The task known by `id` stops waiting (it was cancelled): returns its waiter to resume as
  /// cancelled, or `nil` when it is not stored (it was resumed already, or never stored).
  /// The rows it waited for stay queued and are committed as if it still waited.
  mutating func cancelWait(_ id: UInt64) -> Waiter? {
    waiters.removeValue(forKey: id)?.waiter
  }

  // MARK: - Closing

  /// Closes the queue: no row is accepted after, and the rows never taken by a commit fail
  /// with `error` (their links are told here, in the same transition, so that no waiter of
  /// theirs can resume before). Returns the parked drainer to stop (resume it with no batch)
  /// and the rows failed; nothing when the queue was closed already.
  mutating func close(_ error: PostgresJournalError) -> (
    drainer: Drainer?, untaken: [PostgresJournalRow]
  ) {
    guard case .open(let parked) = phase else { return (nil, []) }
    phase = .closing(error)
    let untaken = pending
    pending = []
    for row in untaken { row.link.fail(error, at: row.number) }
    return (parked, untaken)
  }
}

import Synchronization

/// One journal row waiting for its commit.
struct PostgresJournalRow: Sendable {
  var entity: String
  var sequenceNumber: Int64
  var epoch: Int64
  var action: [UInt8]
  /// The entity's recorder's failure state, told when the row is refused or its commit fails.
  var link: PostgresEntityLink
  /// The row's place in its queue: commits complete rows in this order.
  var number: UInt64
}

/// What an entity's recorder and the commit queue share: the first failure of the entity's
/// rows, after which none of its rows is written (a row after a missing one would leave a gap).
final class PostgresEntityLink: Sendable {
  private let failure = Mutex<(row: UInt64, error: PostgresJournalError)?>(nil)

  /// Records `error` for the row numbered `row`, unless an earlier failure is recorded.
  func fail(_ error: PostgresJournalError, at row: UInt64) {
    failure.withLock { failure in
      if failure == nil { failure = (row, error) }
    }
  }

  /// The failure, when there is one.
  var error: PostgresJournalError? { failure.withLock { $0?.error } }

  /// The failure if it concerns a row numbered `row` or earlier.
  func error(through row: UInt64) -> PostgresJournalError? {
    failure.withLock { failure in
      guard let failure, failure.row <= row else { return nil }
      return failure.error
    }
  }
}

/// The rows of many entities waiting to be committed, and the tasks waiting for them: what
/// makes group commit. Producers append rows and wait for their numbers; one drainer takes
/// every row present (up to a limit), commits them in one statement, and completes them.
///
/// The state machine only decides; ``PostgresCommitQueue`` carries out what it returns, with
/// its lock released.
struct PostgresCommitQueueStateMachine {
  typealias Waiter = CheckedContinuation<Void, Never>
  typealias Drainer = CheckedContinuation<[PostgresJournalRow]?, Never>

  private var pending: [PostgresJournalRow] = []
  private var nextNumber: UInt64 = 1
  /// Every row numbered up to this one is completed (committed, refused or failed).
  private(set) var completedThrough: UInt64 = 0
  private var waiters: [(through: UInt64, continuation: Waiter)] = []
  private var drainer: Drainer?
  private var closedError: PostgresJournalError?
  let maxRows: Int

  init(maxRows: Int) {
    self.maxRows = maxRows
  }

  /// Appends a row; returns its number, or the error of a closed queue, and the drainer to
  /// resume with a batch, if it was waiting.
  mutating func append(
    entity: String, sequenceNumber: Int64, epoch: Int64, action: [UInt8],
    link: PostgresEntityLink
  ) -> (number: UInt64?, resume: (Drainer, [PostgresJournalRow])?) {
    guard closedError == nil else { return (nil, nil) }
    let number = nextNumber
    nextNumber += 1
    pending.append(
      PostgresJournalRow(
        entity: entity, sequenceNumber: sequenceNumber, epoch: epoch, action: action, link: link,
        number: number))
    if let drainer {
      self.drainer = nil
      return (number, (drainer, takeBatch()))
    }
    return (number, nil)
  }

  /// The last number given to a row.
  var lastNumber: UInt64 { nextNumber - 1 }

  private mutating func takeBatch() -> [PostgresJournalRow] {
    if pending.count <= maxRows {
      defer { pending.removeAll(keepingCapacity: true) }
      return pending
    }
    let batch = Array(pending.prefix(maxRows))
    pending.removeFirst(maxRows)
    return batch
  }

  enum NextBatch {
    case batch([PostgresJournalRow])
    case wait
    case stop
  }

  /// The drainer asks for rows: a batch, or it waits (stored) until a row arrives.
  mutating func nextBatch(_ drainer: Drainer) -> NextBatch {
    if !pending.isEmpty { return .batch(takeBatch()) }
    if closedError != nil { return .stop }
    precondition(self.drainer == nil, "Internal inconsistency: two drainers")
    self.drainer = drainer
    return .wait
  }

  /// Rows up to `number` are completed: returns the waiters to resume.
  mutating func complete(through number: UInt64) -> [Waiter] {
    completedThrough = max(completedThrough, number)
    var ready: [Waiter] = []
    waiters.removeAll { waiter in
      guard waiter.through <= completedThrough else { return false }
      ready.append(waiter.continuation)
      return true
    }
    return ready
  }

  /// A task waits until rows up to `number` are completed: `true` when they are already (it
  /// resumes at once), `false` when stored.
  mutating func wait(through number: UInt64, _ waiter: Waiter) -> Bool {
    // Not at once when the queue is closed: a commit in flight may still hold the rows.
    // Once the drainer has stopped, every number given is completed.
    if number <= completedThrough { return true }
    waiters.append((number, waiter))
    return false
  }

  /// Closes the queue: no row is accepted after; returns the drainer to stop and the rows that
  /// were never taken (to fail), and the waiters to resume.
  mutating func close(_ error: PostgresJournalError) -> (
    drainer: Drainer?, untaken: [PostgresJournalRow]
  ) {
    guard closedError == nil else { return (nil, []) }
    closedError = error
    let drainer = self.drainer
    self.drainer = nil
    let untaken = pending
    pending = []
    return (drainer, untaken)
  }

  var isClosed: Bool { closedError != nil }
}

import Logging
import NIOCore
import PostgresNIO
import Synchronization

/// The rows of many entities' recorders, committed together: each commit is one statement
/// (one transaction, one round trip) on the queue's own connection, carrying every row that
/// arrived while the previous one ran. So concurrent producers share commits (group commit),
/// and one entity's rows, which all go through one queue, commit in order.
final class PostgresCommitQueue: Sendable {
  /// Resumed with `true` when the rows it waits for are completed, `false` when its task was
  /// cancelled first.
  typealias Waiter = CheckedContinuation<Bool, Never>
  typealias Drainer = CheckedContinuation<[PostgresJournalRow]?, Never>

  /// Lock order: this lock, then a row's link (the state machine fails rows' links in
  /// ``close(_:)``); a link's lock takes no other.
  private let state: Mutex<PostgresCommitQueueStateMachine<Waiter, Drainer>>
  private let connection: PostgresConnectionSlot
  private let sql: String
  /// Commits made, for the measurements (rows per commit).
  private let commitCount = Atomic<Int>(0)
  /// The IDs of waiting tasks, for their cancellation: unique per queue.
  private let waiterIDs = Atomic<UInt64>(0)
  /// The drainer, set once right after `init`: ``shutdown(_:)`` awaits it.
  private let drainer = Mutex<Task<Void, Never>?>(nil)

  init(connection: PostgresConnectionSlot, schema: PostgresJournalSchema, maxRows: Int) {
    state = Mutex(PostgresCommitQueueStateMachine(maxRows: maxRows))
    self.connection = connection
    sql = schema.appendFenced
    let task = Task { await self.drain() }
    drainer.withLock { $0 = task }
  }

  /// Commits made (each one statement carrying one or more rows).
  var commits: Int { commitCount.load(ordering: .relaxed) }

  /// Rows queued since the queue began, committed or not.
  var queuedRows: Int { state.withLock { Int($0.lastNumber) } }

  /// Tasks waiting for rows, for the tests.
  var waitingTasks: Int { state.withLock { $0.waiterCount } }

  /// Queues a row; returns its number, which ``wait(through:)`` takes, or `nil` when the queue
  /// is closed (the row is not queued).
  func append(
    entity: String, sequenceNumber: Int64, epoch: Int64, action: [UInt8],
    link: PostgresEntityLink
  ) -> UInt64? {
    let (number, resume) = state.withLock {
      $0.append(
        entity: entity, sequenceNumber: sequenceNumber, epoch: epoch, action: action, link: link)
    }
    if let (drainer, batch) = resume { drainer.resume(returning: batch) }
    return number
  }

  /// Waits until the rows numbered up to `number` are completed: committed, refused or failed
  /// (each row's link tells which). Returns `false`, at once, when the calling task is
  /// cancelled before: the rows stay queued and their commit goes on for the other waiters.
  func wait(through number: UInt64) async -> Bool {
    let id = waiterIDs.add(1, ordering: .relaxed).newValue
    return await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: Waiter) in
        switch state.withLock({ $0.wait(id: id, through: number, continuation) }) {
        case .resumeNow:
          continuation.resume(returning: true)
        case .stored:
          // The cancellation handler may have run before the waiter was stored, and found
          // nothing to cancel: then this does its work (the handler never runs again).
          if Task.isCancelled { cancelWait(id) }
        }
      }
    } onCancel: {
      cancelWait(id)
    }
  }

  /// Resumes the waiter `id` as cancelled, unless it was resumed already.
  private func cancelWait(_ id: UInt64) {
    state.withLock { $0.cancelWait(id) }?.resume(returning: false)
  }

  /// Stops taking rows: rows not yet taken by a commit fail with `error`; a commit in flight
  /// completes.
  func close(_ error: PostgresJournalError) {
    let (drainer, _) = state.withLock { $0.close(error) }
    drainer?.resume(returning: nil)
  }

  /// Closes the queue (see ``close(_:)``), waits for the commit in flight, and closes the
  /// connection.
  func shutdown(_ error: PostgresJournalError) async {
    close(error)
    await drainer.withLock { $0 }?.value
    await connection.close()
  }

  private func drain() async {
    while true {
      let batch: [PostgresJournalRow]? = await withCheckedContinuation { continuation in
        let next = state.withLock { $0.nextBatch(continuation) }
        switch next {
        case .batch(let rows): continuation.resume(returning: rows)
        case .stop: continuation.resume(returning: nil)
        case .wait: break
        }
      }
      guard let batch, let last = batch.last else { break }
      await commit(batch)
      let ready = state.withLock { $0.complete(through: last.number) }
      for waiter in ready { waiter.resume(returning: true) }
    }
    let ready = state.withLock { $0.drainerStopped() }
    for waiter in ready { waiter.resume(returning: true) }
  }

  /// Commits `batch` in one statement; refused entities' and failed rows' links are told.
  private func commit(_ batch: [PostgresJournalRow]) async {
    // Rows of an entity that failed earlier are not written: they would follow a gap. A
    // failure of a later row (the queue closed meanwhile) does not stop an earlier one.
    let rows = batch.filter { $0.link.error(through: $0.number) == nil }
    guard !rows.isEmpty else { return }
    var entities: [String] = []
    var numbers: [Int64] = []
    var epochs: [Int64] = []
    var actions: [ByteBuffer] = []
    entities.reserveCapacity(rows.count)
    numbers.reserveCapacity(rows.count)
    epochs.reserveCapacity(rows.count)
    actions.reserveCapacity(rows.count)
    for row in rows {
      entities.append(row.entity)
      numbers.append(row.sequenceNumber)
      epochs.append(row.epoch)
      actions.append(ByteBuffer(bytes: row.action))
    }
    var binds = PostgresBindings(capacity: 4)
    binds.append(entities)
    binds.append(numbers)
    binds.append(epochs)
    binds.append(actions)
    var refused: [(entity: String, epoch: Int64, current: Int64?, owner: String?)] = []
    do {
      let result = try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds))
      for try await (entity, epoch, current, owner) in result.decode(
        (String, Int64, Int64?, String?).self)
      {
        refused.append((entity, epoch, current, owner))
      }
      commitCount.add(1, ordering: .relaxed)
    } catch {
      let failure = PostgresJournalError.database(
        error, doing: "committing \(rows.count) journal rows")
      for row in rows { row.link.fail(failure, at: row.number) }
      return
    }
    guard !refused.isEmpty else { return }
    var errors: [String: PostgresJournalError] = [:]
    for entry in refused {
      let current = entry.current.map { "is at epoch \($0)" } ?? "has no owner row"
      let owner = entry.owner.map { " (owner \($0))" } ?? ""
      errors[entry.entity] = PostgresJournalError(
        .fenced, entity: entry.entity, writerEpoch: entry.epoch, currentEpoch: entry.current,
        owner: entry.owner,
        message:
          "write refused: this node writes with epoch \(entry.epoch), the entity \(current)"
          + "\(owner); nothing of the write was committed")
    }
    for row in rows {
      if let error = errors[row.entity] { row.link.fail(error, at: row.number) }
    }
  }
}

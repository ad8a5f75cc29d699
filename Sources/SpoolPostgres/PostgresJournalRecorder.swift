import SpoolCore
import SpoolJournal
import Synchronization

/// Records every action an entity's store reduces into PostgreSQL, each row carrying the
/// entity's key, its sequence number and the epoch this node took the entity with.
///
/// A `StoreInstrumentation`, made by ``PostgresJournalDirectory``: the store hands it each
/// reduced action, which it encodes (with the action's `JournalCodable` conformance when it
/// has one, `Codable` otherwise, as SpoolJournal's files do) and queues for the next commit of
/// its node's writer; commits carry the rows of every entity that arrived meanwhile (group
/// commit). ``waitUntilDurable()`` returns once every action recorded before the call is
/// committed.
///
/// Once a row of the entity is refused (the entity was taken over: ``PostgresJournalError/Code/fenced``)
/// or its commit fails (the connection broke, PostgreSQL is unreachable), the recorder records
/// nothing more: later actions are dropped (a row after a missing one would leave a gap), and
/// every ``waitUntilDurable()`` that covers them throws that error. The store's state then runs
/// ahead of its journal: stop serving it. The entity must then be taken again (``PostgresJournalDirectory/makeStore(for:initialState:recovered:reducer:)``
/// after ``PostgresJournalDirectory/evict(_:finalState:)``), which recovers what was committed.
///
/// ```swift
/// await store.send(.add(item))
/// try await recorder.waitUntilDurable()
/// return .ok  // committed: survives this node, and a take-over replays it
/// ```
public final class PostgresJournalRecorder<Action: Codable & Sendable>: StoreInstrumentation {
  /// The entity's key in PostgreSQL.
  public let entity: String
  /// The epoch this node writes with: the entity's epoch when this node took it.
  public let epoch: Int64
  /// The instrumentation every call is forwarded to, after recording.
  public let next: (any StoreInstrumentation<Action>)?
  let queue: PostgresCommitQueue
  let link = PostgresEntityLink()
  private let core: Mutex<Core>

  private struct Core {
    let coder = JournalRecordCoder<Action>()
    /// The sequence number of the next action.
    var nextSequence: Int64
    /// The queue number of the last row queued, 0 before the first.
    var lastRow: UInt64 = 0
    var recorded = 0
    var dropped = 0
    var finished = false
  }

  init(
    entity: String, epoch: Int64, lastSequence: Int64, queue: PostgresCommitQueue,
    next: (any StoreInstrumentation<Action>)?
  ) {
    self.entity = entity
    self.epoch = epoch
    self.queue = queue
    self.next = next
    core = Mutex(Core(nextSequence: lastSequence + 1))
  }

  /// The sequence number of the last action recorded (of the snapshot or last row recovered,
  /// before the first).
  ///
  /// ```swift
  /// print(recorder.lastSequenceNumber)
  /// ```
  public var lastSequenceNumber: Int64 { core.withLock { $0.nextSequence - 1 } }

  /// Actions recorded, and actions dropped (after a failure or an eviction, or whose
  /// encoding threw).
  ///
  /// ```swift
  /// let (recorded, dropped) = recorder.counts
  /// ```
  public var counts: (recorded: Int, dropped: Int) {
    core.withLock { ($0.recorded, $0.dropped) }
  }

  /// The error that stopped the recorder, if one did.
  ///
  /// ```swift
  /// if let error = recorder.failure, error.code == .fenced { /* taken over */ }
  /// ```
  public var failure: PostgresJournalError? { link.error }

  /// `false` unless the instrumentation it forwards to times reduces.
  ///
  /// ```swift
  /// recorder.timesReduces  // false
  /// ```
  public var timesReduces: Bool { next?.timesReduces ?? false }

  /// Records `action`; called by the store after each reduce.
  ///
  /// ```swift
  /// recorder.actionReduced(.increment, enqueuedAt: 100, startedAt: 150, endedAt: 190)
  /// ```
  public func actionReduced(
    _ action: Action, enqueuedAt: UInt64, startedAt: UInt64, endedAt: UInt64
  ) {
    core.withLock { core in
      guard !core.finished, link.error == nil else {
        core.dropped += 1
        return
      }
      let bytes: [UInt8]
      do {
        bytes = try core.coder.encode(action)
      } catch {
        core.dropped += 1
        link.fail(
          PostgresJournalError(
            .notRecording, entity: entity, sequenceNumber: core.nextSequence,
            message: "the action could not be encoded: \(error)"),
          at: core.lastRow + 1)
        return
      }
      // Queued with the lock held, so that the entity's rows enter the queue in order.
      guard
        let number = queue.append(
          entity: entity, sequenceNumber: core.nextSequence, epoch: epoch, action: bytes,
          link: link)
      else {
        core.dropped += 1
        link.fail(
          PostgresJournalError(
            .notRecording, entity: entity, sequenceNumber: core.nextSequence,
            message: "the node was closed"),
          at: core.lastRow + 1)
        return
      }
      core.lastRow = number
      core.nextSequence += 1
      core.recorded += 1
    }
    next?.actionReduced(action, enqueuedAt: enqueuedAt, startedAt: startedAt, endedAt: endedAt)
  }

  /// Forwards to ``next``; effects are not recorded (the actions they send are).
  ///
  /// ```swift
  /// recorder.effectStarted(by: .load, at: 200)
  /// ```
  public func effectStarted(by action: Action, at time: UInt64) {
    next?.effectStarted(by: action, at: time)
  }

  /// Forwards to ``next``.
  ///
  /// ```swift
  /// recorder.effectEnded(by: .load, startedAt: 200, endedAt: 5_200, outcome: .finished)
  /// ```
  public func effectEnded(
    by action: Action, startedAt: UInt64, endedAt: UInt64, outcome: EffectOutcome
  ) {
    next?.effectEnded(by: action, startedAt: startedAt, endedAt: endedAt, outcome: outcome)
  }

  /// Waits until every action recorded before the call is committed in PostgreSQL.
  ///
  /// Call it before acknowledging an action to a client. Calls from many entities' stores
  /// share commits (group commit): a commit carries every row queued while the one before it
  /// ran.
  ///
  /// Cancelling the calling task ends the wait at once with ``PostgresJournalError/Code/cancelled``
  /// unless the actions are committed already: the actions stay queued and are committed (or
  /// fail) as if the call still waited, and other calls waiting for them are not disturbed. A
  /// cancelled call says nothing of their durability; call again to learn it.
  ///
  /// - Throws: ``PostgresJournalError``: ``PostgresJournalError/Code/fenced`` when the entity
  ///   was taken over (the refused rows were not committed), ``PostgresJournalError/Code/database``
  ///   when a commit failed (the connection broke, or PostgreSQL is unreachable),
  ///   ``PostgresJournalError/Code/notRecording`` when an action could not be recorded,
  ///   ``PostgresJournalError/Code/cancelled`` when the calling task was cancelled first. An
  ///   action covered by a call that throws may or may not be committed only in the case of a
  ///   connection lost during its commit; it is never reported durable unless it was. After
  ///   any error but `cancelled`, the recorder records nothing more: evict the entity's store,
  ///   and take it again to serve it.
  ///
  /// ```swift
  /// await store.send(.add(item))
  /// try await recorder.waitUntilDurable()
  /// ```
  public func waitUntilDurable() async throws(PostgresJournalError) {
    let (through, dropped, sequence) = core.withLock {
      ($0.lastRow, $0.dropped, $0.nextSequence - 1)
    }
    if through > 0, await !queue.wait(through: through) {
      throw PostgresJournalError(
        .cancelled, entity: entity, sequenceNumber: sequence,
        message:
          "the wait was cancelled before the actions through this sequence number were "
          + "committed; they may still be")
    }
    if let error = link.error(through: through) { throw error }
    if dropped > 0, let error = link.error { throw error }
  }

  /// Stops recording: actions reduced afterwards are dropped.
  func finish() {
    core.withLock { $0.finished = true }
  }
}

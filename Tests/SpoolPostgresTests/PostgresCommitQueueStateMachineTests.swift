@testable import SpoolPostgres
import Testing

/// The commit queue's state machine, driven synchronously with no database: its waiters and
/// drainer are plain strings, and a test plays the drainer (takes a batch, "commits" it by
/// telling the rows' links the outcome, completes it).
struct PostgresCommitQueueStateMachineTests {
  typealias Machine = PostgresCommitQueueStateMachine<String, String>

  static let failure = PostgresJournalError(.database, message: "committing failed")
  static let closed = PostgresJournalError(.notRecording, message: "the node was closed")

  /// Appends a row of `entity` with `link`; returns its number and the drainer handed a batch.
  @discardableResult
  static func append(
    _ machine: inout Machine, _ entity: String, _ link: PostgresEntityLink, sequence: Int64 = 1
  ) -> (number: UInt64?, resume: (String, [UInt64])?) {
    let (number, resume) = machine.append(
      entity: entity, sequenceNumber: sequence, epoch: 1, action: [1], link: link)
    return (number, resume.map { ($0.0, $0.1.map(\.number)) })
  }

  static func numbers(_ next: Machine.NextBatch) -> [UInt64]? {
    guard case .batch(let rows) = next else { return nil }
    return rows.map(\.number)
  }

  @Test func rowsAreNumberedInOrderAndAParkedDrainerIsHandedTheFirstRow() {
    var machine = Machine(maxRows: 10)
    let link = PostgresEntityLink()
    guard case .wait = machine.nextBatch("drainer") else {
      Issue.record("an empty open queue must park its drainer")
      return
    }
    let first = Self.append(&machine, "a", link)
    #expect(first.number == 1)
    #expect(first.resume?.0 == "drainer")
    #expect(first.resume?.1 == [1])
    // The drainer is no longer parked: the next rows wait for it to ask.
    let second = Self.append(&machine, "a", link, sequence: 2)
    let third = Self.append(&machine, "b", PostgresEntityLink())
    #expect(second.number == 2 && second.resume == nil)
    #expect(third.number == 3 && third.resume == nil)
    #expect(machine.lastNumber == 3)
    #expect(Self.numbers(machine.nextBatch("drainer")) == [2, 3])
    #expect(machine.pendingCount == 0)
  }

  @Test func batchesHoldAtMostMaxRowsInOrder() {
    var machine = Machine(maxRows: 2)
    for sequence in 1...5 {
      Self.append(&machine, "a", PostgresEntityLink(), sequence: Int64(sequence))
    }
    #expect(Self.numbers(machine.nextBatch("d")) == [1, 2])
    #expect(Self.numbers(machine.nextBatch("d")) == [3, 4])
    #expect(Self.numbers(machine.nextBatch("d")) == [5])
    guard case .wait = machine.nextBatch("d") else {
      Issue.record("an empty open queue must park its drainer")
      return
    }
  }

  @Test func completionResumesExactlyTheWaitersItCovers() {
    var machine = Machine(maxRows: 10)
    for sequence in 1...3 {
      Self.append(&machine, "a", PostgresEntityLink(), sequence: Int64(sequence))
    }
    #expect(machine.wait(id: 1, through: 1, "w1") == .stored)
    #expect(machine.wait(id: 2, through: 2, "w2") == .stored)
    #expect(machine.wait(id: 3, through: 3, "w3") == .stored)
    #expect(Self.numbers(machine.nextBatch("d")) == [1, 2, 3])
    #expect(machine.complete(through: 2).sorted() == ["w1", "w2"])
    #expect(machine.completedThrough == 2)
    // Completing less than what is completed is no transition.
    #expect(machine.complete(through: 1).isEmpty)
    #expect(machine.completedThrough == 2)
    // A wait for completed rows resumes at once and is not stored.
    #expect(machine.wait(id: 4, through: 2, "w4") == .resumeNow)
    #expect(machine.waiterCount == 1)
    #expect(machine.complete(through: 3) == ["w3"])
    #expect(machine.waiterCount == 0)
  }

  /// A batch whose commit failed completes like any other (its waiters resume), and its
  /// rows' links carry the failure: a waiter of a failed row learns it, a waiter of another
  /// entity's committed row in the same batch, or of an earlier committed row of the same
  /// entity, does not.
  @Test func waitersOfAFailedBatchResumeAndTheirRowsCarryTheFailure() {
    var machine = Machine(maxRows: 10)
    let a = PostgresEntityLink()
    let b = PostgresEntityLink()
    Self.append(&machine, "a", a, sequence: 1)
    #expect(Self.numbers(machine.nextBatch("d")) == [1])
    #expect(machine.complete(through: 1).isEmpty)  // a's row 1: committed

    Self.append(&machine, "a", a, sequence: 2)
    Self.append(&machine, "b", b, sequence: 1)
    Self.append(&machine, "a", a, sequence: 3)
    #expect(machine.wait(id: 1, through: 2, "a2") == .stored)
    #expect(machine.wait(id: 2, through: 3, "b1") == .stored)
    #expect(machine.wait(id: 3, through: 4, "a3") == .stored)
    #expect(Self.numbers(machine.nextBatch("d")) == [2, 3, 4])
    // The commit of a's rows failed (b's rows were committed by the same statement's
    // other entity: the queue fails per entity).
    a.fail(Self.failure, at: 2)
    a.fail(Self.failure, at: 4)
    #expect(machine.complete(through: 4).sorted() == ["a2", "a3", "b1"])
    #expect(a.error(through: 1) == nil)
    #expect(a.error(through: 2) == Self.failure)
    #expect(a.error(through: 4) == Self.failure)
    #expect(b.error(through: 3) == nil)
  }

  /// The earliest failed row wins whatever the order the failures are told in: a queue
  /// closed during a commit fails the entity's untaken (later) rows first, and the commit's
  /// failure of its earlier rows must still reach their waiters.
  @Test func theEarliestFailureOfALinkWinsWhateverTheOrder() {
    let link = PostgresEntityLink()
    link.fail(Self.closed, at: 7)
    #expect(link.error(through: 5) == nil)
    link.fail(Self.failure, at: 5)
    #expect(link.error(through: 5) == Self.failure)
    #expect(link.error(through: 7) == Self.failure)
    link.fail(Self.closed, at: 6)
    #expect(link.error == Self.failure)
  }

  /// Closing during a commit: the rows not taken fail at once (before any waiter can resume),
  /// the commit in flight completes its own rows, and the drainer stops after it; every
  /// waiter resumes, and rows are refused from the close on.
  @Test func closeDuringACommitFailsTheUntakenRowsAndStopsTheDrainerAfterIt() {
    var machine = Machine(maxRows: 2)
    let link = PostgresEntityLink()
    for sequence in 1...3 { Self.append(&machine, "a", link, sequence: Int64(sequence)) }
    #expect(machine.wait(id: 1, through: 2, "in flight") == .stored)
    #expect(machine.wait(id: 2, through: 3, "untaken") == .stored)
    #expect(Self.numbers(machine.nextBatch("d")) == [1, 2])

    let (drainer, untaken) = machine.close(Self.closed)
    #expect(drainer == nil)  // busy committing, not parked
    #expect(untaken.map(\.number) == [3])
    #expect(link.error(through: 2) == nil)
    #expect(link.error(through: 3) == Self.closed)
    #expect(machine.isClosed)
    #expect(Self.append(&machine, "a", link, sequence: 4).number == nil)
    #expect(machine.lastNumber == 3)
    // Closing again is no transition.
    let again = machine.close(Self.failure)
    #expect(again.drainer == nil && again.untaken.isEmpty)
    #expect(link.error(through: 3) == Self.closed)

    #expect(machine.complete(through: 2) == ["in flight"])
    guard case .stop = machine.nextBatch("d") else {
      Issue.record("a closed, empty queue must stop its drainer")
      return
    }
    #expect(machine.drainerStopped() == ["untaken"])
    #expect(machine.completedThrough == 3)
    #expect(machine.wait(id: 3, through: 3, "late") == .resumeNow)
  }

  /// Shutdown with waiters pending while the drainer commits: every queued row fails, and
  /// every waiter resumes once the drainer stopped. With the drainer parked (nothing queued),
  /// the close hands it back to stop.
  @Test func shutdownWithPendingWaitersFailsTheirRowsAndResumesThemAll() {
    var machine = Machine(maxRows: 10)
    guard case .wait = machine.nextBatch("parked") else {
      Issue.record("an empty open queue must park its drainer")
      return
    }
    let link = PostgresEntityLink()
    let first = Self.append(&machine, "a", link)
    #expect(first.resume?.1 == [1])
    // The drainer commits row 1 while rows 2 and 3 queue with their waiters.
    Self.append(&machine, "a", link, sequence: 2)
    Self.append(&machine, "b", PostgresEntityLink(), sequence: 1)
    #expect(machine.wait(id: 1, through: 1, "w1") == .stored)
    #expect(machine.wait(id: 2, through: 2, "w2") == .stored)
    #expect(machine.wait(id: 3, through: 3, "w3") == .stored)
    #expect(machine.complete(through: 1) == ["w1"])
    guard case .batch = machine.nextBatch("parked") else {
      Issue.record("rows are queued")
      return
    }
    // Rows 2 and 3 are committed; row 4 queues behind a commit that is not asked for yet.
    #expect(machine.complete(through: 3).sorted() == ["w2", "w3"])
    Self.append(&machine, "a", link, sequence: 3)
    #expect(machine.wait(id: 4, through: 4, "w4") == .stored)
    let (drainer, untaken) = machine.close(Self.closed)
    #expect(drainer == nil)
    #expect(untaken.map(\.number) == [4])
    guard case .stop = machine.nextBatch("parked") else {
      Issue.record("a closed, empty queue must stop its drainer")
      return
    }
    #expect(machine.drainerStopped() == ["w4"])
    #expect(link.error(through: 3) == nil)
    #expect(link.error(through: 4) == Self.closed)
    #expect(machine.waiterCount == 0)

    var idle = Machine(maxRows: 10)
    guard case .wait = idle.nextBatch("parked") else {
      Issue.record("an empty open queue must park its drainer")
      return
    }
    let stopped = idle.close(Self.closed)
    #expect(stopped.drainer == "parked")
    #expect(stopped.untaken.isEmpty)
    #expect(idle.drainerStopped().isEmpty)
  }

  /// A cancelled waiter is handed back once, and only if still stored; the other waiters of
  /// the same rows, and the rows, are untouched.
  @Test func cancellingAWaiterLeavesTheRowsAndTheOtherWaiters() {
    var machine = Machine(maxRows: 10)
    Self.append(&machine, "a", PostgresEntityLink())
    Self.append(&machine, "a", PostgresEntityLink(), sequence: 2)
    #expect(machine.wait(id: 1, through: 2, "cancelled") == .stored)
    #expect(machine.wait(id: 2, through: 2, "other") == .stored)
    #expect(machine.cancelWait(1) == "cancelled")
    #expect(machine.cancelWait(1) == nil)
    #expect(machine.cancelWait(99) == nil)
    #expect(machine.pendingCount == 2)
    #expect(Self.numbers(machine.nextBatch("d")) == [1, 2])
    #expect(machine.complete(through: 2) == ["other"])
    // Too late: resumed as completed already.
    #expect(machine.cancelWait(2) == nil)
  }

  // MARK: - Invalid transitions end the process (internal inconsistencies)

  @Test func aSecondDrainerIsAnInternalInconsistency() async {
    await #expect(processExitsWith: .failure) {
      var machine = PostgresCommitQueueStateMachine<String, String>(maxRows: 1)
      _ = machine.nextBatch("first")
      _ = machine.nextBatch("second")
    }
  }

  @Test func completingRowsNeverGivenIsAnInternalInconsistency() async {
    await #expect(processExitsWith: .failure) {
      var machine = PostgresCommitQueueStateMachine<String, String>(maxRows: 1)
      _ = machine.complete(through: 1)
    }
  }

  @Test func waitingForARowNeverGivenIsAnInternalInconsistency() async {
    await #expect(processExitsWith: .failure) {
      var machine = PostgresCommitQueueStateMachine<String, String>(maxRows: 1)
      _ = machine.wait(id: 1, through: 1, "w")
    }
  }

  @Test func aDrainerStoppingAnOpenQueueIsAnInternalInconsistency() async {
    await #expect(processExitsWith: .failure) {
      var machine = PostgresCommitQueueStateMachine<String, String>(maxRows: 1)
      _ = machine.drainerStopped()
    }
  }

  @Test func twoWaitersOfOneIDAreAnInternalInconsistency() async {
    await #expect(processExitsWith: .failure) {
      var machine = PostgresCommitQueueStateMachine<String, String>(maxRows: 1)
      _ = machine.append(
        entity: "a", sequenceNumber: 1, epoch: 1, action: [], link: PostgresEntityLink())
      _ = machine.wait(id: 1, through: 1, "w")
      _ = machine.wait(id: 1, through: 1, "w")
    }
  }
}

@testable import SpoolIO
@testable import SpoolJournal
import Testing

extension SpoolJournalTests {
  /// The queue between the recorder and its writer, without I/O: one drainer, order kept,
  /// nothing written after a failure, waiters resumed only when idle.
  @Suite struct JournalWriterStateMachineTests {
    struct WriteFailed: Error {}

    func chunk(_ count: Int) -> JournalChunk {
      let chunk = JournalChunk(capacity: 4_096)
      chunk.count = count
      return chunk
    }

    @Test func oneDrainerWritesTheChunksInOrderThenStops() {
      var machine = JournalWriterStateMachine<Int>()
      let first = chunk(1)
      let second = chunk(2)
      guard case (.startDrainer, nil) = machine.submit(first) else {
        Issue.record("the first chunk must start the drainer")
        return
      }
      guard case (.none, nil) = machine.submit(second) else {
        Issue.record("a second drainer started")
        return
      }
      let waits = machine.waitUntilIdle(7)
      #expect(waits)
      guard case .write(let a) = machine.next(), a === first else {
        Issue.record("not the first chunk first")
        return
      }
      machine.written(a, error: nil)
      guard case .write(let b) = machine.next(), b === second else {
        Issue.record("not the second chunk second")
        return
      }
      machine.written(b, error: nil)
      guard case .stop(let waiters) = machine.next() else {
        Issue.record("the drainer did not stop on an empty queue")
        return
      }
      #expect(waiters == [7])
      #expect(!machine.isDraining)
      let waitsWhenIdle = machine.waitUntilIdle(8)
      #expect(!waitsWhenIdle)
      // Written chunks come back for reuse, emptied.
      let (_, reused) = machine.submit(chunk(3))
      #expect(reused === second || reused === first)
      #expect(reused?.count == 0)
    }

    @Test func afterAFailureLaterChunksAreDroppedAndCounted() {
      var machine = JournalWriterStateMachine<Int>()
      let failing = chunk(10)
      _ = machine.submit(failing)
      _ = machine.submit(chunk(20))
      guard case .write(let written) = machine.next() else {
        Issue.record("nothing to write")
        return
      }
      machine.written(written, error: WriteFailed())
      #expect(machine.failure is WriteFailed)
      #expect(machine.droppedBytes == 20)
      guard case .stop = machine.next() else {
        Issue.record("the queued chunk was kept after the failure")
        return
      }
      guard case (.none, _) = machine.submit(chunk(30)) else {
        Issue.record("a drainer started after the failure")
        return
      }
      #expect(machine.droppedBytes == 50)
    }

    /// Durable waiters present when the queue empties share one sync; one that arrives during
    /// it waits for the next.
    @Test func durableWaitersShareOneSync() {
      var machine = JournalWriterStateMachine<Int>()
      let first = chunk(1)
      _ = machine.submit(first)
      guard case .wait = machine.waitUntilDurable(through: 1, id: 1, 10),
        case .wait = machine.waitUntilDurable(through: 1, id: 2, 11)
      else {
        Issue.record("durable waiters did not wait for the running drainer")
        return
      }
      guard case .write(let written) = machine.next() else {
        Issue.record("nothing to write")
        return
      }
      machine.written(written, error: nil)
      guard case .sync(let through) = machine.next(), through == 1 else {
        Issue.record("no sync for the durable waiters")
        return
      }
      _ = machine.submit(chunk(2))
      guard case .wait = machine.waitUntilDurable(through: 2, id: 3, 12) else {
        Issue.record("a waiter for an unsynced chunk did not wait")
        return
      }
      #expect(machine.synced(through: 1, error: nil) == [10, 11])
      guard case .write(let second) = machine.next() else {
        Issue.record("the second chunk was not written")
        return
      }
      machine.written(second, error: nil)
      guard case .sync(2) = machine.next() else {
        Issue.record("no second sync for the later waiter")
        return
      }
      #expect(machine.synced(through: 2, error: nil) == [12])
      guard case .stop(let idle) = machine.next(), idle.isEmpty else {
        Issue.record("the drainer did not stop")
        return
      }
      guard case .ready = machine.waitUntilDurable(through: 2, id: 4, 13) else {
        Issue.record("a waiter for synced chunks waited")
        return
      }
    }

    /// A durable waiter with the drainer idle starts it for a sync; a failed sync resumes every
    /// durable waiter, and `synced` stays where it was.
    @Test func aFailedSyncResumesEveryDurableWaiter() {
      var machine = JournalWriterStateMachine<Int>()
      _ = machine.submit(chunk(1))
      if case .write(let written) = machine.next() { machine.written(written, error: nil) }
      guard case .stop = machine.next() else {
        Issue.record("the drainer did not stop")
        return
      }
      guard case .waitAndStartDrainer = machine.waitUntilDurable(through: 1, id: 1, 10) else {
        Issue.record("an idle writer did not start a drainer for a sync")
        return
      }
      guard case .sync(1) = machine.next() else {
        Issue.record("no sync")
        return
      }
      #expect(machine.synced(through: 1, error: WriteFailed()) == [10])
      #expect(machine.synced == 0)
      #expect(machine.failure is WriteFailed)
      guard case .ready = machine.waitUntilDurable(through: 1, id: 2, 11) else {
        Issue.record("a waiter after the failure waited")
        return
      }
    }

    /// Waiters counting on the chunk the recorder is filling make the drainer collect it once,
    /// write it once and sync once for all of them.
    @Test func waitersOnTheFillingChunkShareOneCollectionWriteAndSync() {
      var machine = JournalWriterStateMachine<Int>()
      guard case .waitAndStartDrainer = machine.waitUntilDurable(through: 1, id: 1, 10) else {
        Issue.record("an idle writer did not start a drainer")
        return
      }
      guard case .wait = machine.waitUntilDurable(through: 1, id: 2, 11) else {
        Issue.record("a second waiter did not just wait")
        return
      }
      guard case .collect = machine.next() else {
        Issue.record("the drainer did not collect the chunk being filled")
        return
      }
      _ = machine.submit(chunk(2))
      guard case .write(let written) = machine.next() else {
        Issue.record("the collected chunk was not written")
        return
      }
      machine.written(written, error: nil)
      guard case .sync(1) = machine.next() else {
        Issue.record("no sync through the collected chunk")
        return
      }
      #expect(machine.synced(through: 1, error: nil) == [10, 11])
      #expect(machine.syncs == 1)
      guard case .stop(let idle) = machine.next(), idle.isEmpty else {
        Issue.record("the drainer did not stop")
        return
      }
    }

    /// A waiter that arrives while a collection runs, counting on the chunk after the one
    /// collected, gets a collection of its own before any sync: never a sync that lacks its
    /// records.
    @Test func aWaiterArrivingDuringACollectionGetsAnotherOne() {
      var machine = JournalWriterStateMachine<Int>()
      _ = machine.waitUntilDurable(through: 1, id: 1, 10)
      guard case .collect = machine.next() else {
        Issue.record("the drainer did not collect")
        return
      }
      _ = machine.submit(chunk(1))
      // Recorded after the collection: it counts on chunk 2, still in the recorder.
      guard case .wait = machine.waitUntilDurable(through: 2, id: 2, 11) else {
        Issue.record("the second waiter did not wait on the running drainer")
        return
      }
      guard case .write(let first) = machine.next() else {
        Issue.record("the collected chunk was not written")
        return
      }
      machine.written(first, error: nil)
      guard case .collect = machine.next() else {
        Issue.record("a sync started before the second waiter's chunk was collected")
        return
      }
      _ = machine.submit(chunk(1))
      guard case .write(let second) = machine.next() else {
        Issue.record("the second collected chunk was not written")
        return
      }
      machine.written(second, error: nil)
      guard case .sync(2) = machine.next() else {
        Issue.record("no sync through both chunks")
        return
      }
      #expect(machine.synced(through: 2, error: nil) == [10, 11])
    }

    @Test func aCancelledDurableWaiterIsRemoved() {
      var machine = JournalWriterStateMachine<Int>()
      _ = machine.submit(chunk(1))
      _ = machine.waitUntilDurable(through: 1, id: 5, 10)
      #expect(machine.cancelDurable(id: 5) == 10)
      #expect(machine.cancelDurable(id: 5) == nil)
    }
  }
}

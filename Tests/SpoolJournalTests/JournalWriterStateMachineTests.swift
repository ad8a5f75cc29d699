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
  }
}

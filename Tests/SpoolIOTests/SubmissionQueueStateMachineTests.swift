@testable import SpoolIO
import Testing

extension SpoolIOTests {
  @Suite struct SubmissionQueueStateMachineTests {
    @Test func enqueueToRunningLoopNeedsNoWakeUp() {
      var machine = SubmissionQueueStateMachine<Int>()
      let first = machine.enqueue(1)
      let second = machine.enqueue(2)
      #expect(first == .none)
      #expect(second == .none)
      var batch: [Int] = []
      let stopping = machine.takeAll(into: &batch)
      #expect(stopping == false)
      #expect(batch == [1, 2])
      #expect(machine.pending.isEmpty)
    }

    @Test func onlyTheFirstSubmitterWakesASleepingLoop() {
      var machine = SubmissionQueueStateMachine<Int>()
      let sleeps = machine.prepareToSleep()
      #expect(sleeps)
      #expect(machine.loopState == .sleeping)
      let first = machine.enqueue(1)
      let second = machine.enqueue(2)
      #expect(first == .wakeLoop)
      #expect(second == .none)
      var batch: [Int] = []
      _ = machine.takeAll(into: &batch)
      #expect(machine.loopState == .running)
      #expect(batch == [1, 2])
    }

    @Test func loopStaysAwakeWhenWorkArrivedBeforeItSlept() {
      var machine = SubmissionQueueStateMachine<Int>()
      _ = machine.enqueue(1)
      let sleeps = machine.prepareToSleep()
      #expect(sleeps == false)
      #expect(machine.loopState == .running)
    }

    @Test func aLoopBackFromTheKernelNeedsNoWakeUp() {
      var machine = SubmissionQueueStateMachine<Int>()
      let sleeps = machine.prepareToSleep()
      #expect(sleeps)
      machine.didWake()
      let action = machine.enqueue(1)
      #expect(action == .none)
    }

    @Test func shutdownWakesTheLoopAndRejectsNewWork() {
      var machine = SubmissionQueueStateMachine<Int>()
      let mightSleep = machine.prepareToSleep()
      #expect(mightSleep)
      let shutdown = machine.shutdown()
      let late = machine.enqueue(1)
      #expect(shutdown == .wakeLoop)
      #expect(late == .reject)
      var batch: [Int] = []
      let stopping = machine.takeAll(into: &batch)
      #expect(stopping)
      #expect(batch.isEmpty)
    }
  }
}

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
      let sleeps = machine.prepareToSleep(knowsOfShutdown: false)
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
      let sleeps = machine.prepareToSleep(knowsOfShutdown: false)
      #expect(sleeps == false)
      #expect(machine.loopState == .running)
    }

    @Test func aLoopBackFromTheKernelNeedsNoWakeUp() {
      var machine = SubmissionQueueStateMachine<Int>()
      let sleeps = machine.prepareToSleep(knowsOfShutdown: false)
      #expect(sleeps)
      machine.didWake()
      let action = machine.enqueue(1)
      #expect(action == .none)
    }

    @Test func aShutdownRequestedWhileTheLoopRanKeepsItAwake() {
      // The loop is running (no wake-up is sent), then decides whether to sleep.
      var machine = SubmissionQueueStateMachine<Int>()
      var batch: [Int] = []
      let stopping = machine.takeAll(into: &batch)
      let action = machine.shutdown()
      #expect(action == .none)
      let sleeps = machine.prepareToSleep(knowsOfShutdown: stopping)
      #expect(sleeps == false)
      let nowStopping = machine.takeAll(into: &batch)
      let sleepsAfterSeeingIt = machine.prepareToSleep(knowsOfShutdown: nowStopping)
      #expect(sleepsAfterSeeingIt)
    }

    @Test func shutdownWakesTheLoopAndRejectsNewWork() {
      var machine = SubmissionQueueStateMachine<Int>()
      let mightSleep = machine.prepareToSleep(knowsOfShutdown: false)
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

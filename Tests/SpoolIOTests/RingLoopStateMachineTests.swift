@testable import SpoolIO
import Testing

extension SpoolIOTests {
  @Suite struct RingLoopStateMachineTests {
    /// A serving loop prepares its wake-up read once, sleeps only with it in the kernel, and
    /// prepares it again after a submitter's wake-up completed it.
    @Test func aServingLoopSleepsOnlyWithItsWakeUpReadInTheKernel() {
      var machine = RingLoopStateMachine()
      machine.queueTaken(stopping: false)
      #expect(machine.state == .running(wakeArmed: false))
      #expect(machine.needsWakeRead)
      #expect(machine.maySleep == false)
      machine.wakeReadPrepared()
      #expect(machine.state == .running(wakeArmed: true))
      #expect(machine.needsWakeRead == false)
      #expect(machine.maySleep)
      machine.wakeReadCompleted()
      #expect(machine.state == .running(wakeArmed: false))
      #expect(machine.needsWakeRead)
    }

    /// A serving loop neither fails submissions, nor cancels everything, nor exits.
    @Test func aServingLoopKeepsServing() {
      for wakeArmed in [false, true] {
        var machine = RingLoopStateMachine()
        if wakeArmed { machine.wakeReadPrepared() }
        machine.queueTaken(stopping: false)
        #expect(machine.isStopping == false)
        #expect(machine.cancelAllIssued == false)
        #expect(machine.shouldCancelAll(backlogDrained: true) == false)
        #expect(machine.mayExit(idle: true) == false)
      }
    }

    /// The whole shutdown: seen, the backlog drained, everything cancelled, the wake-up read
    /// completed, and the loop idle; only then may it exit.
    @Test func aShutdownDrainsCancelsAndWaitsForTheWakeUpRead() {
      var machine = RingLoopStateMachine()
      machine.wakeReadPrepared()
      machine.queueTaken(stopping: true)
      #expect(machine.state == .draining(wakeArmed: true))
      #expect(machine.isStopping)
      #expect(machine.cancelAllIssued == false)
      #expect(machine.needsWakeRead == false)
      #expect(machine.maySleep)
      #expect(machine.mayExit(idle: true) == false)
      #expect(machine.shouldCancelAll(backlogDrained: false) == false)
      #expect(machine.shouldCancelAll(backlogDrained: true))
      machine.cancelAllPrepared()
      #expect(machine.state == .cancelling(wakeArmed: true))
      #expect(machine.cancelAllIssued)
      #expect(machine.shouldCancelAll(backlogDrained: true) == false)
      machine.queueTaken(stopping: true)
      #expect(machine.state == .cancelling(wakeArmed: true))
      #expect(machine.mayExit(idle: true) == false)
      machine.wakeReadCompleted()
      #expect(machine.state == .cancelling(wakeArmed: false))
      #expect(machine.mayExit(idle: false) == false)
      #expect(machine.mayExit(idle: true))
      #expect(machine.maySleep)
    }

    /// A wake-up read that completes while the loop drains is not prepared again: a stopping
    /// loop expects nothing but completions.
    @Test func aDrainingLoopDoesNotPrepareItsWakeUpReadAgain() {
      var machine = RingLoopStateMachine()
      machine.wakeReadPrepared()
      machine.queueTaken(stopping: true)
      machine.queueTaken(stopping: true)
      machine.wakeReadCompleted()
      #expect(machine.state == .draining(wakeArmed: false))
      #expect(machine.needsWakeRead == false)
      #expect(machine.maySleep)
      machine.cancelAllPrepared()
      #expect(machine.mayExit(idle: true))
    }

    /// A loop that never armed its wake-up read may exit as soon as it has cancelled and idles.
    @Test func aLoopStoppedBeforeItsFirstSleepExitsAfterCancelling() {
      var machine = RingLoopStateMachine()
      machine.queueTaken(stopping: true)
      #expect(machine.state == .draining(wakeArmed: false))
      #expect(machine.mayExit(idle: true) == false)
      machine.cancelAllPrepared()
      #expect(machine.mayExit(idle: true))
    }

    // MARK: - Impossible events end the process (internal inconsistencies)

    @Test func aQueueThatForgetsTheShutdownIsAnInternalInconsistency() async {
      await #expect(processExitsWith: .failure) {
        var machine = RingLoopStateMachine()
        machine.queueTaken(stopping: true)
        machine.queueTaken(stopping: false)
      }
    }

    @Test func aQueueThatForgetsTheShutdownAfterCancellingIsAnInternalInconsistency() async {
      await #expect(processExitsWith: .failure) {
        var machine = RingLoopStateMachine()
        machine.queueTaken(stopping: true)
        machine.cancelAllPrepared()
        machine.queueTaken(stopping: false)
      }
    }

    @Test func cancellingAllWhileServingIsAnInternalInconsistency() async {
      await #expect(processExitsWith: .failure) {
        var machine = RingLoopStateMachine()
        machine.cancelAllPrepared()
      }
    }

    @Test func cancellingAllTwiceIsAnInternalInconsistency() async {
      await #expect(processExitsWith: .failure) {
        var machine = RingLoopStateMachine()
        machine.queueTaken(stopping: true)
        machine.cancelAllPrepared()
        machine.cancelAllPrepared()
      }
    }

    @Test func armingTheWakeUpReadTwiceIsAnInternalInconsistency() async {
      await #expect(processExitsWith: .failure) {
        var machine = RingLoopStateMachine()
        machine.wakeReadPrepared()
        machine.wakeReadPrepared()
      }
    }

    @Test func armingTheWakeUpReadWhileStoppingIsAnInternalInconsistency() async {
      await #expect(processExitsWith: .failure) {
        var machine = RingLoopStateMachine()
        machine.queueTaken(stopping: true)
        machine.wakeReadPrepared()
      }
    }

    @Test func aWakeUpReadCompletingUnarmedIsAnInternalInconsistency() async {
      await #expect(processExitsWith: .failure) {
        var machine = RingLoopStateMachine()
        machine.wakeReadCompleted()
      }
    }
  }
}

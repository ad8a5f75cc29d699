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

    /// A store's jobs (`untilExit`) are accepted while the loop shuts down, other requests are
    /// not; after the loop's exit nothing is, and the exit hands back what arrived last.
    @Test func jobsOfStoresAreAcceptedUntilTheLoopExits() {
      var machine = SubmissionQueueStateMachine<Int>()
      _ = machine.shutdown()
      #expect(machine.enqueue(1) == .reject)
      #expect(machine.enqueue(2, untilExit: true) == .none)
      var batch: [Int] = []
      let stopping = machine.takeAll(into: &batch)
      #expect(stopping)
      #expect(batch == [2])
      #expect(machine.enqueue(3, untilExit: true) == .none)
      #expect(machine.enqueue(4, untilExit: true) == .none)
      let leftovers = machine.exit()
      #expect(leftovers == [3, 4])
      #expect(machine.pending.isEmpty)
      #expect(machine.enqueue(5, untilExit: true) == .reject)
      #expect(machine.enqueue(6) == .reject)
    }

    @Test func aSleepingStoppingLoopIsWokenForAStoresJob() {
      var machine = SubmissionQueueStateMachine<Int>()
      _ = machine.shutdown()
      var batch: [Int] = []
      _ = machine.takeAll(into: &batch)
      let sleeps = machine.prepareToSleep(knowsOfShutdown: true)
      #expect(sleeps)
      let action = machine.enqueue(1, untilExit: true)
      #expect(action == .wakeLoop)
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

    /// Every phase and loop state a shutdown request can meet: it wakes only a sleeping loop,
    /// once, and a second request, or one after the exit, changes nothing.
    @Test func shutdownFromEveryPhase() {
      var running = SubmissionQueueStateMachine<Int>()
      #expect(running.shutdown() == .none)
      #expect(running.state == .stopping(.running))
      #expect(running.shutdown() == .none)

      var signalled = SubmissionQueueStateMachine<Int>()
      _ = signalled.prepareToSleep(knowsOfShutdown: false)
      #expect(signalled.enqueue(1) == .wakeLoop)
      #expect(signalled.shutdown() == .none)
      #expect(signalled.state == .stopping(.signalled))

      var exited = SubmissionQueueStateMachine<Int>()
      _ = exited.exit()
      #expect(exited.shutdown() == .none)
      #expect(exited.state == .exited)
      #expect(exited.loopState == nil)
    }

    /// What counts as news for the loop: a pending request always; otherwise only a shutdown
    /// phase the loop's last `takeAll` did not report.
    @Test func newsIsAPendingRequestOrAnUnseenShutdown() {
      var machine = SubmissionQueueStateMachine<Int>()
      #expect(machine.hasNews(knowsOfShutdown: false) == false)
      _ = machine.enqueue(1)
      #expect(machine.hasNews(knowsOfShutdown: false))
      var batch: [Int] = []
      _ = machine.takeAll(into: &batch)
      _ = machine.shutdown()
      #expect(machine.hasNews(knowsOfShutdown: false))
      #expect(machine.hasNews(knowsOfShutdown: true) == false)
      _ = machine.exit()
      #expect(machine.hasNews(knowsOfShutdown: true) == false)
    }

    /// A loop back from the kernel is running whether or not it was signalled, in either phase.
    @Test func wakingMakesTheLoopRunningInEitherPhase() {
      var machine = SubmissionQueueStateMachine<Int>()
      _ = machine.prepareToSleep(knowsOfShutdown: false)
      _ = machine.enqueue(1)
      machine.didWake()
      #expect(machine.state == .accepting(.running))
      var batch: [Int] = []
      _ = machine.takeAll(into: &batch)
      #expect(batch == [1])
      batch.removeAll()
      _ = machine.shutdown()
      _ = machine.takeAll(into: &batch)
      let sleeps = machine.prepareToSleep(knowsOfShutdown: true)
      #expect(sleeps)
      #expect(machine.state == .stopping(.sleeping))
      machine.didWake()
      #expect(machine.state == .stopping(.running))
    }

    /// Enqueueing in every phase: accepted and waking only a sleeping loop while accepting;
    /// while stopping only a store's jobs; after the exit nothing.
    @Test func enqueueFromEveryPhaseAndLoopState() {
      for loop in [SubmissionQueueStateMachine<Int>.LoopState.running, .sleeping, .signalled] {
        for stopping in [false, true] {
          var machine = SubmissionQueueStateMachine<Int>()
          if stopping {
            _ = machine.shutdown()
            var batch: [Int] = []
            _ = machine.takeAll(into: &batch)
          }
          if loop != .running { _ = machine.prepareToSleep(knowsOfShutdown: stopping) }
          if loop == .signalled { _ = machine.enqueue(0, untilExit: true) }
          #expect(machine.loopState == loop)
          let action = machine.enqueue(1, untilExit: true)
          #expect(action == (loop == .sleeping ? .wakeLoop : .none))
          #expect(machine.loopState == (loop == .running ? .running : .signalled))
          #expect(machine.enqueue(2) == (stopping ? .reject : .none))
          #expect(machine.pending.last == (stopping ? 1 : 2))
        }
      }
    }

    /// A loop that went to sleep with a signal pending stays signalled (the eventfd's count
    /// wakes it), and a loop already sleeping or signalled is not asked to sleep again.
    @Test func prepareToSleepKeepsASleepingOrSignalledLoop() {
      var machine = SubmissionQueueStateMachine<Int>()
      let sleeps = machine.prepareToSleep(knowsOfShutdown: false)
      let sleepsAgain = machine.prepareToSleep(knowsOfShutdown: false)
      #expect(sleeps && sleepsAgain)
      #expect(machine.state == .accepting(.sleeping))
      _ = machine.enqueue(1)
      var batch: [Int] = []
      _ = machine.takeAll(into: &batch)
      #expect(machine.state == .accepting(.running))
    }

    // MARK: - Impossible transitions end the process (internal inconsistencies)

    @Test func takingRequestsAfterTheExitIsAnInternalInconsistency() async {
      await #expect(processExitsWith: .failure) {
        var machine = SubmissionQueueStateMachine<Int>()
        _ = machine.exit()
        var batch: [Int] = []
        _ = machine.takeAll(into: &batch)
      }
    }

    @Test func takingIntoAnUnconsumedBatchIsAnInternalInconsistency() async {
      await #expect(processExitsWith: .failure) {
        var machine = SubmissionQueueStateMachine<Int>()
        var batch = [1]
        _ = machine.takeAll(into: &batch)
      }
    }

    @Test func sleepingAfterTheExitIsAnInternalInconsistency() async {
      await #expect(processExitsWith: .failure) {
        var machine = SubmissionQueueStateMachine<Int>()
        _ = machine.exit()
        _ = machine.prepareToSleep(knowsOfShutdown: true)
      }
    }

    @Test func wakingAfterTheExitIsAnInternalInconsistency() async {
      await #expect(processExitsWith: .failure) {
        var machine = SubmissionQueueStateMachine<Int>()
        _ = machine.exit()
        machine.didWake()
      }
    }

    @Test func exitingTwiceIsAnInternalInconsistency() async {
      await #expect(processExitsWith: .failure) {
        var machine = SubmissionQueueStateMachine<Int>()
        _ = machine.exit()
        _ = machine.exit()
      }
    }
  }
}

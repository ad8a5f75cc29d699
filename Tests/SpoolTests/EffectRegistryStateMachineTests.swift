import ConcurrencyExtras
import Testing

@testable import SpoolCore

/// The registry's bookkeeping, synchronously, without tasks running.
@Suite struct EffectRegistryStateMachineTests {
  /// A stand-in task that counts its cancellations.
  final class FakeTask: RegisteredTask {
    let cancellations = LockIsolated(0)
    func cancel() { cancellations.withValue { $0 += 1 } }
  }

  /// Reserves a slot under `ids` and attaches `task` to it, as `EffectRegistry.spawn` does.
  func register(
    _ task: FakeTask, ids: [AnyHashableSendable], in machine: inout EffectRegistryStateMachine
  ) -> (EffectRegistryStateMachine.Token, EffectRegistryStateMachine.AttachAction) {
    let token = machine.reserve(ids: ids)
    return (token, machine.attach(task, to: token))
  }

  @Test func cancellingAnIDTakesItsTasksOnce() {
    var machine = EffectRegistryStateMachine()
    let id = AnyHashableSendable("search")
    let (firstToken, _) = register(FakeTask(), ids: [id], in: &machine)
    let (secondToken, _) = register(FakeTask(), ids: [id], in: &machine)

    let taken = machine.takeTasks(for: id)
    #expect(taken.count == 2)
    // Cancelled tasks that have not ended yet are still counted, but no longer under the ID.
    #expect(machine.count == 2)
    #expect(machine.count(for: id) == 0)
    #expect(machine.takeTasks(for: id).isEmpty)

    _ = machine.finished(firstToken)
    _ = machine.finished(secondToken)
    #expect(machine.count == 0)
  }

  /// An effect reserved without a task yet (the store collects restarts until the end of its
  /// drain pass): it starts unless it was cancelled by its ID or the registry shut down; one
  /// that does not start is forgotten, its slot reused, and the idle waiters resumed.
  @Test func aReservedEffectStartsUnlessCancelledBeforeItsTask() async {
    var machine = EffectRegistryStateMachine()
    let id = AnyHashableSendable("search")
    let other = AnyHashableSendable("outer")
    let kept = machine.reserve(ids: [id])
    #expect(machine.shouldStart(kept).start)
    #expect(machine.attach(FakeTask(), to: kept) == .none)

    let replaced = machine.reserve(ids: [other, id])
    #expect(machine.takeTasks(for: id).count == 1, "the attached task is taken, not the slot")
    _ = machine.finished(kept)
    await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
      #expect(machine.waitUntilIdle(continuation) == false)
      let (start, waiters) = machine.shouldStart(replaced)
      #expect(!start)
      #expect(waiters.count == 1, "the registry became idle: its waiter is resumed")
      for waiter in waiters { waiter.resume() }
      if waiters.isEmpty { continuation.resume() }
    }
    #expect(machine.count == 0)
    #expect(machine.count(for: other) == 0, "forgotten under its other ID too")
    #expect(machine.reserve(ids: []) == replaced, "its slot is free again")

    var shutDown = EffectRegistryStateMachine()
    let pending = shutDown.reserve(ids: [id])
    #expect(shutDown.shutdown().isEmpty)
    #expect(!shutDown.shouldStart(pending).start)
    #expect(shutDown.count == 0)
  }

  /// A restart (`cancelInFlight`): the replaced task ends after its successor registered under
  /// the same ID, which must stay registered; tasks under several IDs leave only the one
  /// cancelled.
  @Test func aReplacedTaskEndingLaterLeavesItsSuccessorRegistered() {
    var machine = EffectRegistryStateMachine()
    let id = AnyHashableSendable("search")
    let other = AnyHashableSendable("outer")
    let (oldToken, _) = register(FakeTask(), ids: [id], in: &machine)
    let (nestedToken, _) = register(FakeTask(), ids: [other, id], in: &machine)
    #expect(machine.count(for: id) == 2)

    #expect(machine.takeTasks(for: id).count == 2)
    let (newToken, _) = register(FakeTask(), ids: [id], in: &machine)
    #expect(machine.count(for: id) == 1)
    _ = machine.finished(oldToken)
    #expect(machine.count(for: id) == 1, "the successor must stay under the ID")
    #expect(machine.count(for: other) == 1, "the nested task is still under its other ID")
    _ = machine.finished(nestedToken)
    #expect(machine.count(for: other) == 0)
    #expect(machine.takeTasks(for: id).count == 1)
    _ = machine.finished(newToken)
    #expect(machine.count == 0)
  }

  @Test func shutdownCancelsLaterRegistrations() {
    var machine = EffectRegistryStateMachine()
    _ = register(FakeTask(), ids: [], in: &machine)
    let reservedBefore = machine.reserve(ids: [])
    #expect(machine.shutdown().count == 1)
    guard case .cancel = machine.attach(FakeTask(), to: reservedBefore) else {
      Issue.record("a task attached after shutdown must be cancelled")
      return
    }
    guard case .cancel = register(FakeTask(), ids: [], in: &machine).1 else {
      Issue.record("a task registered after shutdown must be cancelled")
      return
    }
  }

  @Test func aTaskThatEndsBeforeItIsAttachedFreesItsSlotOnAttach() {
    var machine = EffectRegistryStateMachine()
    let id = AnyHashableSendable("quick")
    let token = machine.reserve(ids: [id])
    #expect(machine.count == 1)
    _ = machine.finished(token)
    #expect(machine.count == 0)
    #expect(machine.count(for: id) == 0)
    // The slot is still held: a new reservation must not get the same token yet.
    let other = machine.reserve(ids: [])
    #expect(other != token)
    guard case .none = machine.attach(FakeTask(), to: token) else {
      Issue.record("a task that already ended must not be cancelled on attach")
      return
    }
    // Now the slot is free and reused.
    _ = machine.attach(FakeTask(), to: other)
    #expect(machine.reserve(ids: []) == token)
  }

  @Test func cancellingAnIDBeforeTheTaskIsAttachedCancelsItOnAttach() {
    var machine = EffectRegistryStateMachine()
    let id = AnyHashableSendable("slow")
    let token = machine.reserve(ids: [id])
    #expect(machine.takeTasks(for: id).isEmpty)
    let task = FakeTask()
    guard case .cancel = machine.attach(task, to: token) else {
      Issue.record("a task cancelled by ID before it was attached must be cancelled on attach")
      return
    }
    #expect(machine.count == 1)
    _ = machine.finished(token)
    #expect(machine.count == 0)
  }

  @Test func slotsAreReusedSoBookkeepingStaysBounded() {
    var machine = EffectRegistryStateMachine()
    var tokens = Set<EffectRegistryStateMachine.Token>()
    for _ in 0..<1_000 {
      let (token, _) = register(FakeTask(), ids: [AnyHashableSendable(1)], in: &machine)
      tokens.insert(token)
      _ = machine.finished(token)
    }
    #expect(tokens.count == 1)
    #expect(machine.count == 0)
    #expect(machine.count(for: AnyHashableSendable(1)) == 0)
  }

  // MARK: Immediate starts registered after the fact

  @Test func aStartedTaskRegisteredWhileRunningIsTrackedUntilItEnds() {
    var machine = EffectRegistryStateMachine()
    guard case .none = machine.registerStarted(FakeTask(), start: 2) else {
      Issue.record("a running task registered before shutdown must not be cancelled")
      return
    }
    #expect(machine.count == 1)
    #expect(machine.shutdown().count == 1)
    _ = machine.startedEffectEnded(2)
    #expect(machine.count == 0)
  }

  @Test func aStartedTaskThatEndsBeforeItsRegistrationIsNeverTracked() {
    var machine = EffectRegistryStateMachine()
    #expect(machine.startedEffectEnded(4).isEmpty)
    #expect(machine.count == 0)
    guard case .none = machine.registerStarted(FakeTask(), start: 4) else {
      Issue.record("an ended task must not be cancelled")
      return
    }
    #expect(machine.count == 0)
    #expect(machine.shutdown().isEmpty)
    // The id is forgotten: a later start with another id is tracked as usual.
    _ = machine.registerStarted(FakeTask(), start: 6)
    #expect(machine.count == 1)
  }

  @Test func aStartedTaskRegisteredAfterShutdownIsCancelled() {
    var machine = EffectRegistryStateMachine()
    _ = machine.shutdown()
    guard case .cancel = machine.registerStarted(FakeTask(), start: 2) else {
      Issue.record("a task registered after shutdown must be cancelled")
      return
    }
    #expect(machine.count == 1)
    _ = machine.startedEffectEnded(2)
    #expect(machine.count == 0)
  }

  @Test func theLastStartedTaskToEndResumesTheIdleWaiters() async {
    var machine = EffectRegistryStateMachine()
    _ = machine.registerStarted(FakeTask(), start: 2)
    await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
      #expect(machine.waitUntilIdle(continuation) == false)
      let waiters = machine.startedEffectEnded(2)
      #expect(waiters.count == 1)
      for waiter in waiters { waiter.resume() }
    }
    #expect(machine.count == 0)
  }
}

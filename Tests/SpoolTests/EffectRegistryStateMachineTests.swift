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

  /// Whether `action` starts the effect.
  static func starts(_ action: EffectRegistryStateMachine.StartAction) -> Bool {
    if case .start = action { return true }
    return false
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
    #expect(Self.starts(machine.shouldStart(kept)))
    #expect(machine.attach(FakeTask(), to: kept) == .none)

    let replaced = machine.reserve(ids: [other, id])
    #expect(machine.takeTasks(for: id).count == 1, "the attached task is taken, not the slot")
    _ = machine.finished(kept)
    await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
      #expect(machine.waitUntilIdle(continuation) == false)
      guard case let .drop(waiters) = machine.shouldStart(replaced) else {
        Issue.record("an effect cancelled by its ID before its task must not start")
        continuation.resume()
        return
      }
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
    #expect(!Self.starts(shutDown.shouldStart(pending)))
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

  // MARK: Every transition of a slot (the table on `EffectRegistryStateMachine.Slot`)

  static let first = AnyHashableSendable("first")
  static let second = AnyHashableSendable("second")

  /// The state of the slot of `token`, and the number of IDs it is still under.
  static func state(
    of token: EffectRegistryStateMachine.Token, in machine: EffectRegistryStateMachine
  ) -> String {
    switch machine.slot(token) {
    case .free: "free"
    case let .reserved(ids): "reserved \(ids.count)"
    case let .cancelledBeforeAttach(ids): "cancelledBeforeAttach \(ids.count)"
    case let .running(_, ids): "running \(ids.count)"
    case .endedBeforeAttach: "endedBeforeAttach"
    }
  }

  /// A slot reserved under ``first`` and ``second``, then cancelled by ``first`` before its
  /// task was attached.
  func cancelledBeforeAttach(
    in machine: inout EffectRegistryStateMachine
  ) -> EffectRegistryStateMachine.Token {
    let token = machine.reserve(ids: [Self.first, Self.second])
    #expect(machine.takeTasks(for: Self.first).isEmpty)
    return token
  }

  @Test func freeReservedIsReserved() {
    var machine = EffectRegistryStateMachine()
    let (token, _) = register(FakeTask(), ids: [], in: &machine)
    _ = machine.finished(token)
    #expect(Self.state(of: token, in: machine) == "free")
    #expect(machine.reserve(ids: [Self.first]) == token)
    #expect(Self.state(of: token, in: machine) == "reserved 1")
    #expect(machine.count == 1)
    #expect(machine.count(for: Self.first) == 1)
  }

  @Test func reservedAttachedIsRunning() {
    var machine = EffectRegistryStateMachine()
    let token = machine.reserve(ids: [Self.first])
    #expect(machine.attach(FakeTask(), to: token) == .none)
    #expect(Self.state(of: token, in: machine) == "running 1")
    #expect(machine.count == 1)
  }

  @Test func reservedAttachedAfterShutdownIsRunningCancelled() {
    var machine = EffectRegistryStateMachine()
    let token = machine.reserve(ids: [Self.first])
    #expect(machine.shutdown().isEmpty)
    #expect(Self.state(of: token, in: machine) == "reserved 1", "a shutdown leaves it")
    #expect(machine.attach(FakeTask(), to: token) == .cancel)
    #expect(Self.state(of: token, in: machine) == "running 1")
  }

  @Test func reservedStartsUnlessShutDown() {
    var machine = EffectRegistryStateMachine()
    let token = machine.reserve(ids: [Self.first])
    #expect(Self.starts(machine.shouldStart(token)))
    #expect(Self.state(of: token, in: machine) == "reserved 1")
    _ = machine.shutdown()
    guard case let .drop(waiters) = machine.shouldStart(token) else {
      Issue.record("an effect reserved before a shutdown must not start after it")
      return
    }
    #expect(waiters.isEmpty)
    #expect(Self.state(of: token, in: machine) == "free")
    #expect(machine.count == 0)
    #expect(machine.count(for: Self.first) == 0)
  }

  @Test func reservedCancelledByOneOfItsIDsIsCancelledBeforeAttach() {
    var machine = EffectRegistryStateMachine()
    let token = cancelledBeforeAttach(in: &machine)
    #expect(Self.state(of: token, in: machine) == "cancelledBeforeAttach 1")
    #expect(machine.count(for: Self.first) == 0)
    #expect(machine.count(for: Self.second) == 1)
    #expect(machine.count == 1)
  }

  @Test func reservedEndedIsEndedBeforeAttachUntilItsAttach() {
    var machine = EffectRegistryStateMachine()
    let token = machine.reserve(ids: [Self.first])
    #expect(machine.finished(token).isEmpty)
    #expect(Self.state(of: token, in: machine) == "endedBeforeAttach")
    #expect(machine.count == 0)
    #expect(machine.count(for: Self.first) == 0)
    #expect(machine.attach(FakeTask(), to: token) == .none)
    #expect(Self.state(of: token, in: machine) == "free")
    #expect(machine.reserve(ids: []) == token)
  }

  @Test func cancelledBeforeAttachAttachedIsRunningCancelled() {
    var machine = EffectRegistryStateMachine()
    let token = cancelledBeforeAttach(in: &machine)
    #expect(machine.attach(FakeTask(), to: token) == .cancel)
    #expect(Self.state(of: token, in: machine) == "running 1")
    #expect(machine.count(for: Self.second) == 1)
  }

  @Test func cancelledBeforeAttachNeverStarts() {
    var machine = EffectRegistryStateMachine()
    let token = cancelledBeforeAttach(in: &machine)
    guard case let .drop(waiters) = machine.shouldStart(token) else {
      Issue.record("an effect cancelled before its task must not start")
      return
    }
    #expect(waiters.isEmpty)
    #expect(Self.state(of: token, in: machine) == "free")
    #expect(machine.count == 0)
    #expect(machine.count(for: Self.second) == 0)
    #expect(machine.reserve(ids: []) == token)
  }

  @Test func cancelledBeforeAttachCancelledByItsOtherIDStaysSo() {
    var machine = EffectRegistryStateMachine()
    let token = cancelledBeforeAttach(in: &machine)
    #expect(machine.takeTasks(for: Self.second).isEmpty)
    #expect(Self.state(of: token, in: machine) == "cancelledBeforeAttach 0")
    #expect(machine.count(for: Self.second) == 0)
    #expect(machine.count == 1)
    #expect(machine.attach(FakeTask(), to: token) == .cancel)
  }

  @Test func cancelledBeforeAttachEndedIsEndedBeforeAttachUntilItsAttach() {
    var machine = EffectRegistryStateMachine()
    let token = cancelledBeforeAttach(in: &machine)
    #expect(machine.finished(token).isEmpty)
    #expect(Self.state(of: token, in: machine) == "endedBeforeAttach")
    #expect(machine.count == 0)
    #expect(machine.count(for: Self.second) == 0)
    #expect(machine.attach(FakeTask(), to: token) == .none)
    #expect(Self.state(of: token, in: machine) == "free")
  }

  @Test func runningHandsItsTaskOverToCancelAndIsFreedWhenItEnds() {
    var machine = EffectRegistryStateMachine()
    let task = FakeTask()
    let (token, _) = register(task, ids: [Self.first, Self.second], in: &machine)
    let taken = machine.takeTasks(for: Self.first)
    #expect(taken.count == 1)
    #expect(taken.first as? FakeTask === task)
    #expect(Self.state(of: token, in: machine) == "running 1")
    #expect(machine.count(for: Self.second) == 1)
    let all = machine.shutdown()
    #expect(all.count == 1)
    #expect(all.first as? FakeTask === task)
    #expect(Self.state(of: token, in: machine) == "running 1", "a shutdown leaves it")
    #expect(machine.count == 1)
    #expect(machine.finished(token).isEmpty)
    #expect(Self.state(of: token, in: machine) == "free")
    #expect(machine.count == 0)
    #expect(machine.count(for: Self.second) == 0)
    #expect(task.cancellations.value == 0, "the machine cancels nothing itself")
  }

  // MARK: Impossible events end the process (internal inconsistencies)

  @Test func attachingToARunningSlotIsAnInternalInconsistency() async {
    await #expect(processExitsWith: .failure) {
      var machine = EffectRegistryStateMachine()
      let token = machine.reserve(ids: [])
      _ = machine.attach(EffectRegistryStateMachineTests.FakeTask(), to: token)
      _ = machine.attach(EffectRegistryStateMachineTests.FakeTask(), to: token)
    }
  }

  @Test func attachingToAFreeSlotIsAnInternalInconsistency() async {
    await #expect(processExitsWith: .failure) {
      var machine = EffectRegistryStateMachine()
      let token = machine.reserve(ids: [])
      _ = machine.shutdown()
      _ = machine.shouldStart(token)
      _ = machine.attach(EffectRegistryStateMachineTests.FakeTask(), to: token)
    }
  }

  @Test func startingARunningEffectIsAnInternalInconsistency() async {
    await #expect(processExitsWith: .failure) {
      var machine = EffectRegistryStateMachine()
      let token = machine.reserve(ids: [])
      _ = machine.attach(EffectRegistryStateMachineTests.FakeTask(), to: token)
      _ = machine.shouldStart(token)
    }
  }

  @Test func startingAnEffectThatEndedIsAnInternalInconsistency() async {
    await #expect(processExitsWith: .failure) {
      var machine = EffectRegistryStateMachine()
      let token = machine.reserve(ids: [])
      _ = machine.finished(token)
      _ = machine.shouldStart(token)
    }
  }

  @Test func startingAFreeSlotIsAnInternalInconsistency() async {
    await #expect(processExitsWith: .failure) {
      var machine = EffectRegistryStateMachine()
      let token = machine.reserve(ids: [])
      _ = machine.attach(EffectRegistryStateMachineTests.FakeTask(), to: token)
      _ = machine.finished(token)
      _ = machine.shouldStart(token)
    }
  }

  @Test func endingTwiceBeforeTheAttachIsAnInternalInconsistency() async {
    await #expect(processExitsWith: .failure) {
      var machine = EffectRegistryStateMachine()
      let token = machine.reserve(ids: [])
      _ = machine.finished(token)
      _ = machine.finished(token)
    }
  }

  @Test func endingAFreeSlotIsAnInternalInconsistency() async {
    await #expect(processExitsWith: .failure) {
      var machine = EffectRegistryStateMachine()
      let token = machine.reserve(ids: [])
      _ = machine.attach(EffectRegistryStateMachineTests.FakeTask(), to: token)
      _ = machine.finished(token)
      _ = machine.finished(token)
    }
  }

  @Test func endingAnEffectNeverReservedIsAnInternalInconsistency() async {
    await #expect(processExitsWith: .failure) {
      var machine = EffectRegistryStateMachine()
      _ = machine.finished(0)
    }
  }
}

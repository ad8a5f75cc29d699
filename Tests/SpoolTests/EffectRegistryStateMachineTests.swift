import ConcurrencyExtras
import Testing

@testable import Spool

/// The registry's bookkeeping, synchronously, without tasks running.
@Suite struct EffectRegistryStateMachineTests {
  /// A stand-in task that counts its cancellations.
  final class FakeTask: RegisteredTask {
    let cancellations = LockIsolated(0)
    func cancel() { cancellations.withValue { $0 += 1 } }
  }

  @Test func cancellingAnIDTakesItsTasksOnce() {
    var machine = EffectRegistryStateMachine()
    let id = AnyHashableSendable("search")
    let first = FakeTask()
    let second = FakeTask()
    let firstToken = machine.makeToken()
    _ = machine.register(first, token: firstToken, ids: [id])
    let secondToken = machine.makeToken()
    _ = machine.register(second, token: secondToken, ids: [id])

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

  @Test func shutdownCancelsLaterRegistrations() {
    var machine = EffectRegistryStateMachine()
    let running = FakeTask()
    _ = machine.register(running, token: machine.makeToken(), ids: [])
    #expect(machine.shutdown().count == 1)
    let late = FakeTask()
    guard case .cancel = machine.register(late, token: machine.makeToken(), ids: []) else {
      Issue.record("a task registered after shutdown must be cancelled")
      return
    }
  }
}

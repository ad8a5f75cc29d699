import Synchronization
import Testing

@testable import SpoolCore

/// `Task.startImmediately(priority:operation:)`, which creates effect tasks through the task
/// builtin and the runtime's `swift_task_immediate`: the task it returns must behave as any
/// `Task` (value, error, cancellation), and its operation must run before the call returns.
@Suite struct TaskStartImmediatelyTests {
  @Test func theOperationRunsUpToItsFirstSuspensionBeforeTheCallReturns() async throws {
    let steps = Mutex<[String]>([])
    let gate = AsyncStream<Void>.makeStream()
    let task = Task.startImmediately(priority: nil) {
      steps.withLock { $0.append("started") }
      for await _ in gate.stream { break }
      steps.withLock { $0.append("resumed") }
      return 42
    }
    let beforeReturn = steps.withLock { $0 }
    #expect(beforeReturn == ["started"])
    gate.continuation.yield()
    #expect(try await task.value == 42)
    let afterValue = steps.withLock { $0 }
    #expect(afterValue == ["started", "resumed"])
  }

  @Test func anOperationWithoutSuspensionHasFinishedWhenTheCallReturns() async throws {
    let ran = Mutex(false)
    let task = Task.startImmediately(priority: .low) {
      ran.withLock { $0 = true }
      return Task.basePriority
    }
    let ranBeforeReturn = ran.withLock { $0 }
    #expect(ranBeforeReturn)
    #expect(try await task.value == .low)
  }

  @Test func errorsAndCancellationReachTheReturnedTask() async {
    struct Failure: Error, Equatable {}
    let failing = Task.startImmediately(priority: nil) { () async throws -> Int in
      throw Failure()
    }
    await #expect(throws: Failure.self) { try await failing.value }

    let sleeping = Task.startImmediately(priority: nil) {
      try await Task.sleep(for: .seconds(3_600))
    }
    sleeping.cancel()
    #expect(sleeping.isCancelled)
    await #expect(throws: CancellationError.self) { try await sleeping.value }
  }
}

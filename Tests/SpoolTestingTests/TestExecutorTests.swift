import ConcurrencyExtras
import Testing

@testable import SpoolTesting

@Suite struct TestExecutorTests {
  @Test func jobsRunOnlyWhenDrainedInOrder() async {
    let executor = TestExecutor {}
    let log = LockIsolated<[Int]>([])
    let tasks = (0..<3).map { index in
      Task(executorPreference: executor) { log.withValue { $0.append(index) } }
    }
    #expect(executor.hasJobs)
    #expect(log.value == [])
    #expect(executor.runNext())
    #expect(log.value == [0])
    while executor.runNext() {}
    #expect(log.value == [0, 1, 2])
    for task in tasks { await task.value }
    #expect(!executor.runNext())
  }

  @Test func afterCloseJobsGoToTheGlobalExecutor() async {
    let executor = TestExecutor {}
    let queued = Task(executorPreference: executor) { 1 }
    executor.close()
    let later = Task(executorPreference: executor) {
      await Task.yield()
      return 2
    }
    #expect(await queued.value + later.value == 3)
    #expect(!executor.hasJobs)
  }

  @Test func anEmptyStateMachineHasNoJob() {
    var machine = TestExecutorStateMachine()
    #expect(!machine.hasJobs)
    #expect(machine.next() == nil)
    #expect(machine.close().isEmpty)
  }
}

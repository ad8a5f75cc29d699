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

  @Test func betweenStepsAJobTheOwnerEnqueuesRunsAtOnceThenTheJobsItQueued() async {
    let executor = TestExecutor {}
    // A step makes this task the owner.
    executor.beginStep()
    executor.endStep()
    let log = LockIsolated<[String]>([])
    let outer = Task(executorPreference: executor) {
      log.withValue { $0.append("outer starts") }
      let inner = Task(executorPreference: executor) { log.withValue { $0.append("inner") } }
      log.withValue { $0.append("outer ends") }
      return inner
    }
    // Both ran inside `Task.init`, one after the other, not nested.
    #expect(log.value == ["outer starts", "outer ends", "inner"])
    #expect(!executor.hasJobs)
    await outer.value.value
  }

  @Test func duringAStepJobsWaitForTheStepToRunThem() async {
    let executor = TestExecutor {}
    let log = LockIsolated<[Int]>([])
    executor.beginStep()
    let task = Task(executorPreference: executor) { log.withValue { $0.append(1) } }
    #expect(log.value == [])
    while executor.runNext() {}
    executor.endStep()
    #expect(log.value == [1])
    await task.value
  }

  @Test func betweenStepsAJobAnotherTaskEnqueuesWaitsForTheNextStep() async {
    let executor = TestExecutor {}
    executor.beginStep()
    executor.endStep()
    let log = LockIsolated<[Int]>([])
    let task = await Task.detached {
      Task(executorPreference: executor) { log.withValue { $0.append(1) } }
    }.value
    #expect(log.value == [])
    #expect(executor.hasJobs)
    executor.beginStep()
    while executor.runNext() {}
    executor.endStep()
    #expect(log.value == [1])
    await task.value
  }

  @Test func anEmptyStateMachineHasNoJob() {
    var machine = TestExecutorStateMachine()
    #expect(!machine.hasJobs)
    #expect(machine.next() == nil)
    #expect(machine.close().isEmpty)
  }
}

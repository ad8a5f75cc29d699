import Testing

@testable import SpoolTesting

@Suite struct TestExecutorStateMachineTests {
  @Test func anEmptyQueueHasNoJob() {
    var machine = TestExecutorStateMachine()
    #expect(!machine.hasJobs)
    #expect(machine.next() == nil)
    #expect(machine.close().isEmpty)
  }
}

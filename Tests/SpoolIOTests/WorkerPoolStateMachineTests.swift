@testable import SpoolIO
import Testing

/// An operation of the pool's machine as a plain value: a name, and whether a cancellation
/// completed it while it was queued.
private final class PoolOperation: WorkerPoolOperation {
  let name: String
  var isCompleted = false
  init(_ name: String) { self.name = name }
}

/// The machine with operations by name, workers by name and waiters by name.
private typealias Machine = WorkerPoolStateMachine<PoolOperation, String, String>

/// A transition's action as a short string, so that tests compare whole actions.
private func describe(_ action: Machine.SubmitAction) -> String {
  switch action {
  case .reject: "reject"
  case .failCancelled: "failCancelled"
  case .unpark(let worker): "unpark(\(worker))"
  case .spawnWorker: "spawnWorker"
  case .none: "none"
  }
}

private func describe(_ action: Machine.WorkerAction) -> String {
  switch action {
  case .run(let operation): "run(\(operation.name))"
  case .park: "park"
  case .exit(let waiters): "exit(\(waiters))"
  }
}

private func describe(_ action: Machine.ShutdownAction) -> String {
  switch action {
  case .none: "none"
  case .resume(let waiter): "resume(\(waiter))"
  case .begin(let queued, let running, let parked, let waiter):
    "begin(\(queued.map(\.name)), \(running.map(\.name)), \(parked), \(waiter ?? "-"))"
  }
}

private func describe(_ action: Machine.StartFailureAction) -> String {
  switch action {
  case .none: "none"
  case .failQueued(let queued): "failQueued(\(queued.map(\.name)))"
  case .resume(let waiters): "resume(\(waiters))"
  }
}

private func describe(_ state: Machine.State) -> String {
  switch state {
  case .accepting(let pool):
    "accepting(queued: \(pool.queue[pool.queueHead...].map(\.name)), parked: \(pool.parked), "
      + "workers: \(pool.workers), running: \(pool.running.map(\.name)))"
  case .stopping(let workers, let waiters): "stopping(workers: \(workers), waiters: \(waiters))"
  case .stopped: "stopped"
  case .modifying: "modifying"
  }
}

extension SpoolIOTests {
  @Suite struct WorkerPoolStateMachineTests {
    @Test func eachSubmissionThatFindsNoIdleWorkerStartsOne() {
      var machine = Machine(maximumWorkers: 4)
      let a = PoolOperation("a")
      let b = PoolOperation("b")
      #expect(describe(machine.submit(a, cancelled: false)) == "spawnWorker")
      #expect(describe(machine.submit(b, cancelled: false)) == "spawnWorker")
      #expect(
        describe(machine.state)
          == "accepting(queued: [\"a\", \"b\"], parked: [], workers: 2, running: [])")
      #expect(describe(machine.nextWork(for: "w1")) == "run(a)")
      #expect(describe(machine.nextWork(for: "w2")) == "run(b)")
      #expect(
        describe(machine.state)
          == "accepting(queued: [], parked: [], workers: 2, running: [\"a\", \"b\"])")
      machine.finished(a)
      #expect(describe(machine.nextWork(for: "w1")) == "park")
      #expect(
        describe(machine.state)
          == "accepting(queued: [], parked: [\"w1\"], workers: 2, running: [\"b\"])")
    }

    /// A submission wakes exactly one parked worker, the one parked last (its cache is warm).
    @Test func aSubmissionWakesTheWorkerParkedLast() {
      var machine = Machine(maximumWorkers: 4)
      _ = machine.submit(PoolOperation("a"), cancelled: false)
      _ = machine.submit(PoolOperation("b"), cancelled: false)
      _ = machine.nextWork(for: "w1")
      _ = machine.nextWork(for: "w2")
      #expect(describe(machine.nextWork(for: "w1")) == "park")
      #expect(describe(machine.nextWork(for: "w2")) == "park")
      #expect(describe(machine.submit(PoolOperation("c"), cancelled: false)) == "unpark(w2)")
      #expect(describe(machine.submit(PoolOperation("d"), cancelled: false)) == "unpark(w1)")
      #expect(describe(machine.submit(PoolOperation("e"), cancelled: false)) == "spawnWorker")
    }

    @Test func atItsMaximumThePoolQueuesForTheFirstFreeWorker() {
      var machine = Machine(maximumWorkers: 1)
      let a = PoolOperation("a")
      #expect(describe(machine.submit(a, cancelled: false)) == "spawnWorker")
      #expect(describe(machine.submit(PoolOperation("b"), cancelled: false)) == "none")
      #expect(describe(machine.submit(PoolOperation("c"), cancelled: false)) == "none")
      #expect(describe(machine.nextWork(for: "w")) == "run(a)")
      machine.finished(a)
      #expect(describe(machine.nextWork(for: "w")) == "run(b)")
    }

    @Test func aSubmissionCancelledBeforeItArrivedIsNotQueued() {
      var machine = Machine(maximumWorkers: 1)
      #expect(describe(machine.submit(PoolOperation("a"), cancelled: true)) == "failCancelled")
      #expect(
        describe(machine.state)
          == "accepting(queued: [], parked: [], workers: 0, running: [])")
    }

    /// A cancellation completes a queued operation in place; workers and a shutdown skip it.
    @Test func operationsCompletedWhileQueuedAreSkipped() {
      var machine = Machine(maximumWorkers: 1)
      let a = PoolOperation("a")
      let b = PoolOperation("b")
      let c = PoolOperation("c")
      _ = machine.submit(a, cancelled: false)
      _ = machine.submit(b, cancelled: false)
      _ = machine.submit(c, cancelled: false)
      a.isCompleted = true
      #expect(describe(machine.nextWork(for: "w")) == "run(b)")
      c.isCompleted = true
      machine.finished(b)
      #expect(describe(machine.nextWork(for: "w")) == "park")
    }

    /// The queue is taken in order across the compaction of its storage.
    @Test func theQueueKeepsItsOrderAcrossCompaction() {
      var machine = Machine(maximumWorkers: 1)
      let operations = (0..<3000).map { PoolOperation("\($0)") }
      for operation in operations.prefix(2500) { _ = machine.submit(operation, cancelled: false) }
      var taken: [String] = []
      for index in 0..<3000 {
        if index == 1500 {
          for operation in operations.suffix(500) {
            _ = machine.submit(operation, cancelled: false)
          }
        }
        guard case .run(let operation) = machine.nextWork(for: "w") else {
          Issue.record("the queue ran dry at \(index)")
          return
        }
        taken.append(operation.name)
        machine.finished(operation)
      }
      #expect(taken == operations.map(\.name))
      #expect(describe(machine.nextWork(for: "w")) == "park")
    }

    /// A shutdown fails the queue in order, ends the running operations, wakes the parked
    /// workers; its waiters are resumed when the last worker exits, and nothing is queued again.
    @Test func aShutdownWaitsForEveryWorkerToExit() {
      var machine = Machine(maximumWorkers: 3)
      let a = PoolOperation("a")
      let b = PoolOperation("b")
      _ = machine.submit(a, cancelled: false)
      _ = machine.submit(b, cancelled: false)
      _ = machine.submit(PoolOperation("c"), cancelled: false)
      #expect(describe(machine.nextWork(for: "w1")) == "run(a)")
      #expect(describe(machine.nextWork(for: "w2")) == "run(b)")
      machine.finished(machine.nextWork(for: "w3").operation!)
      #expect(describe(machine.nextWork(for: "w3")) == "park")
      let d = PoolOperation("d")
      let e = PoolOperation("e")
      #expect(describe(machine.submit(d, cancelled: false)) == "unpark(w3)")
      _ = machine.submit(e, cancelled: false)
      #expect(describe(machine.nextWork(for: "w3")) == "run(d)")
      machine.finished(d)
      #expect(describe(machine.nextWork(for: "w3")) == "run(e)")
      machine.finished(e)
      #expect(describe(machine.nextWork(for: "w3")) == "park")
      _ = machine.submit(PoolOperation("f"), cancelled: false)  // wakes w3, which is slow
      _ = machine.submit(PoolOperation("g"), cancelled: false)  // queued: three workers
      #expect(
        describe(machine.shutdown(waiter: "s1")) == "begin([\"f\", \"g\"], [\"a\", \"b\"], [], -)")
      #expect(describe(machine.state) == "stopping(workers: 3, waiters: [\"s1\"])")
      #expect(describe(machine.shutdown(waiter: "s2")) == "none")
      #expect(describe(machine.shutdown(waiter: nil)) == "none")
      #expect(describe(machine.submit(PoolOperation("h"), cancelled: false)) == "reject")
      #expect(describe(machine.submit(PoolOperation("i"), cancelled: true)) == "reject")
      #expect(describe(machine.nextWork(for: "w3")) == "exit([])")
      machine.finished(a)
      #expect(describe(machine.nextWork(for: "w1")) == "exit([])")
      machine.finished(b)
      #expect(describe(machine.nextWork(for: "w2")) == "exit([\"s1\", \"s2\"])")
      #expect(describe(machine.state) == "stopped")
      #expect(describe(machine.shutdown(waiter: "s3")) == "resume(s3)")
      #expect(describe(machine.shutdown(waiter: nil)) == "none")
      #expect(describe(machine.submit(PoolOperation("j"), cancelled: false)) == "reject")
    }

    @Test func aShutdownWakesTheParkedWorkers() {
      var machine = Machine(maximumWorkers: 2)
      _ = machine.submit(PoolOperation("a"), cancelled: false)
      _ = machine.submit(PoolOperation("b"), cancelled: false)
      machine.finished(machine.nextWork(for: "w1").operation!)
      machine.finished(machine.nextWork(for: "w2").operation!)
      _ = machine.nextWork(for: "w1")
      _ = machine.nextWork(for: "w2")
      #expect(describe(machine.shutdown(waiter: nil)) == "begin([], [], [\"w1\", \"w2\"], -)")
      #expect(describe(machine.nextWork(for: "w2")) == "exit([])")
      #expect(describe(machine.nextWork(for: "w1")) == "exit([])")
      #expect(describe(machine.state) == "stopped")
    }

    /// A pool that never started a worker stops at once, with or without a waiter.
    @Test func aPoolWithoutWorkersStopsAtOnce() {
      var waited = Machine(maximumWorkers: 1)
      #expect(describe(waited.shutdown(waiter: "s")) == "begin([], [], [], s)")
      #expect(describe(waited.state) == "stopped")

      var requested = Machine(maximumWorkers: 1)
      #expect(describe(requested.shutdown(waiter: nil)) == "begin([], [], [], -)")
      #expect(describe(requested.state) == "stopped")
      #expect(describe(requested.shutdown(waiter: "s")) == "resume(s)")
    }

    /// A worker that could not start leaves the queue to the others; the last one's failure
    /// fails the queue, and the next submission tries to start a worker again.
    @Test func aWorkerThatFailsToStartLeavesTheQueueToTheOthers() {
      var machine = Machine(maximumWorkers: 4)
      _ = machine.submit(PoolOperation("a"), cancelled: false)
      _ = machine.submit(PoolOperation("b"), cancelled: false)
      #expect(describe(machine.workerFailedToStart()) == "none")
      #expect(describe(machine.workerFailedToStart()) == "failQueued([\"a\", \"b\"])")
      #expect(
        describe(machine.state)
          == "accepting(queued: [], parked: [], workers: 0, running: [])")
      #expect(describe(machine.submit(PoolOperation("c"), cancelled: false)) == "spawnWorker")
    }

    /// Workers that fail to start during a shutdown count as exited: the last one resumes the
    /// shutdown's waiters.
    @Test func aWorkerThatFailsToStartDuringAShutdownCountsAsExited() {
      var machine = Machine(maximumWorkers: 4)
      _ = machine.submit(PoolOperation("a"), cancelled: false)
      _ = machine.submit(PoolOperation("b"), cancelled: false)
      #expect(describe(machine.shutdown(waiter: "s")) == "begin([\"a\", \"b\"], [], [], -)")
      #expect(describe(machine.workerFailedToStart()) == "none")
      #expect(describe(machine.state) == "stopping(workers: 1, waiters: [\"s\"])")
      #expect(describe(machine.workerFailedToStart()) == "resume([\"s\"])")
      #expect(describe(machine.state) == "stopped")
    }

    // MARK: - Impossible transitions end the process (internal inconsistencies)

    @Test func aWorkerAfterTheStopIsAnInternalInconsistency() async {
      await #expect(processExitsWith: .failure) {
        var machine = WorkerPoolStateMachine<PoolOperation, String, String>(maximumWorkers: 1)
        _ = machine.shutdown(waiter: nil)
        _ = machine.nextWork(for: "w")
      }
    }

    @Test func finishingAfterTheStopIsAnInternalInconsistency() async {
      await #expect(processExitsWith: .failure) {
        var machine = WorkerPoolStateMachine<PoolOperation, String, String>(maximumWorkers: 1)
        _ = machine.shutdown(waiter: nil)
        machine.finished(PoolOperation("a"))
      }
    }

    @Test func finishingAnOperationNotRunningIsAnInternalInconsistency() async {
      await #expect(processExitsWith: .failure) {
        var machine = WorkerPoolStateMachine<PoolOperation, String, String>(maximumWorkers: 1)
        _ = machine.submit(PoolOperation("a"), cancelled: false)
        machine.finished(PoolOperation("b"))
      }
    }

    @Test func aStartFailureWithoutAWorkerIsAnInternalInconsistency() async {
      await #expect(processExitsWith: .failure) {
        var machine = WorkerPoolStateMachine<PoolOperation, String, String>(maximumWorkers: 1)
        _ = machine.workerFailedToStart()
      }
    }

    @Test func aStartFailureAfterTheStopIsAnInternalInconsistency() async {
      await #expect(processExitsWith: .failure) {
        var machine = WorkerPoolStateMachine<PoolOperation, String, String>(maximumWorkers: 1)
        _ = machine.shutdown(waiter: nil)
        _ = machine.workerFailedToStart()
      }
    }
  }
}

extension WorkerPoolStateMachine.WorkerAction {
  /// The operation to run, if this is `run`.
  fileprivate var operation: Operation? {
    guard case .run(let operation) = self else { return nil }
    return operation
  }
}

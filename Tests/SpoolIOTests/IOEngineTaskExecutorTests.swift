#if canImport(Glibc)
  import Glibc
#endif
import SpoolCore
@testable import SpoolIO
import Testing

extension SpoolIOTests {
  @Suite struct IOEngineTaskExecutorTests {
    @Test func tasksPreferringTheRingRunOnItsLoopThread() async throws {
      try await expectNoDescriptorLeak {
        try await withEngine(.ioUring) { engine in
          try await withTaskExecutorPreference(engine.taskExecutor) {
            #expect(engine.isOnLoopThread)
            let file = try await IOFile.open("/proc/self/stat", on: engine)
            #expect(engine.isOnLoopThread)
            #expect(try await file.read(upTo: 1, at: 0).count == 1)
            #expect(engine.isOnLoopThread)
            try await file.close()
          }
          #expect(!engine.isOnLoopThread)
        }
      }
    }

    @Test func manyTasksOnTheLoopThreadInterleaveTheirIO() async throws {
      try await withEngine(.ioUring, ringEntries: 64) { engine in
        let file = try await IOFile.open("/proc/self/stat", on: engine)
        let total = try await withThrowingTaskGroup(of: Int.self) { group in
          for _ in 0..<1_000 {
            group.addTask(executorPreference: engine.taskExecutor) {
              precondition(engine.isOnLoopThread)
              return try await file.read(upTo: 4, at: 0).count
            }
          }
          return try await group.reduce(0, +)
        }
        #expect(total == 4_000)
        try await file.close()
      }
    }

    @Test func cancellationWorksOnTheLoopThread() async throws {
      try await withEngine(.ioUring) { engine in
        let clock = IOClock(engine: engine)
        let sleeper = Task(executorPreference: engine.taskExecutor) {
          try await clock.sleep(for: .seconds(3600))
        }
        while engine.operationsInFlight == 0 { await Task.yield() }
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
      }
    }

    @Test func tasksStillOnTheLoopAtShutdownContinueElsewhere() async throws {
      let engine = try IOEngine(backend: .ioUring)
      let listener = try TCPSocket.listen(host: "127.0.0.1", port: 0, on: engine)
      let waiting = Task(executorPreference: engine.taskExecutor) {
        try await listener.accept()
      }
      while engine.operationsInFlight == 0 { await Task.yield() }
      await engine.shutdown()
      await expectIOError(ECANCELED) { _ = try await waiting.value }
      try await listener.close()
    }

    @Test func theThreadBackendOffersTheGlobalExecutor() async throws {
      try await withEngine(.threads) { engine in
        try await withTaskExecutorPreference(engine.taskExecutor) {
          let file = try await IOFile.open("/proc/self/stat", on: engine)
          try await file.close()
          #expect(!engine.isOnLoopThread)
        }
      }
    }
  }
}

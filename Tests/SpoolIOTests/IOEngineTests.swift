#if canImport(Glibc)
  import Glibc
#endif
import SpoolCore
@testable import SpoolIO
import Synchronization
import Testing

extension SpoolIOTests {
  @Suite struct IOEngineTests {
    @Test(arguments: allBackends)
    func runsOnTheRequestedBackend(backend: IOBackend.Preference) async throws {
      try await withEngine(backend) { engine in
        #expect(engine.backend == (backend == .ioUring ? .ioUring : .threads))
        #expect(engine.fallbackReason == nil)
      }
    }

    @Test func environmentForcesTheThreadBackendOnlyForAutomatic() {
      #expect(IOBackend.Preference.automatic.resolved(environment: "threads") == .threads)
      #expect(IOBackend.Preference.automatic.resolved(environment: nil) == .automatic)
      #expect(IOBackend.Preference.automatic.resolved(environment: "io_uring") == .automatic)
      #expect(IOBackend.Preference.ioUring.resolved(environment: "threads") == .ioUring)
    }

    @Test func anUnknownEnvironmentValueIsNamed() {
      #expect(IOBackend.Preference.environmentProblem(nil) == nil)
      #expect(IOBackend.Preference.environmentProblem("") == nil)
      for valid in ["threads", "io_uring", "automatic"] {
        #expect(IOBackend.Preference.environmentProblem(valid) == nil)
      }
      let problem = IOBackend.Preference.environmentProblem("thread")
      #expect(
        problem
          == "SPOOL_IO_BACKEND=thread is not one of threads, io_uring, automatic; using the "
          + "automatic choice")
      #expect(IOBackend.Preference.automatic.resolved(environment: "thread") == .automatic)
    }

    @Test func fallsBackToThreadsWhenTheRingIsRefused() async throws {
      try await expectNoDescriptorLeak {
        // What seccomp or kernel.io_uring_disabled does: io_uring_setup fails with EPERM.
        try await withEngine(
          .automatic, faultInjector: { $0 == "io_uring_setup" ? EPERM : nil }
        ) { engine in
          #expect(engine.backend == .threads)
          if getenv("SPOOL_IO_BACKEND").map({ String(cString: $0) }) == "threads" {
            // Forced by the environment: io_uring was not even tried.
            #expect(engine.fallbackReason == nil)
          } else {
            #expect(
              engine.fallbackReason?.description
                == "io_uring_setup(): Operation not permitted (EPERM)")
          }
          let file = try await IOFile.open("/proc/self/stat", on: engine)
          #expect(try await file.read(upTo: 1, at: 0).count == 1)
          try await file.close()
        }
        await expectIOError(EPERM) {
          _ = try IOEngine(
            backend: .ioUring, ringEntries: 64,
            faultInjector: { $0 == "io_uring_setup" ? EPERM : nil })
        }
      }
    }

    @Test(arguments: allBackends)
    func tenThousandReadsAtOnceOnA64EntryRing(backend: IOBackend.Preference) async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      let blocks = 16
      let blockSize = 4096
      try await expectNoDescriptorLeak {
        try await withEngine(backend, ringEntries: 64) { engine in
          let setup = try await IOFile.open(
            directory.file("blocks"), options: [.write, .create], on: engine)
          for block in 0..<blocks {
            try await setup.write(
              [UInt8](repeating: UInt8(block), count: blockSize),
              at: UInt64(block * blockSize))
          }
          try await setup.close()
          let file = try await IOFile.open(directory.file("blocks"), on: engine)
          let correct = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<10_000 {
              group.addTask {
                let block = index % blocks
                let bytes = try await file.read(
                  upTo: blockSize, at: UInt64(block * blockSize))
                return bytes == [UInt8](repeating: UInt8(block), count: blockSize)
              }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
          }
          #expect(correct == 10_000)
          try await file.close()
        }
      }
    }

    @Test(arguments: allBackends)
    func tenThousandTimeoutsExpiringTogetherAllComplete(backend: IOBackend.Preference)
      async throws
    {
      // 10,000 completions at one instant overflow a 64-entry ring's completion queue (512
      // entries); the kernel holds the rest back and the loop must collect every one.
      try await withEngine(backend, ringEntries: 64) { engine in
        let clock = IOClock(engine: engine)
        let deadline = clock.now.advanced(by: .milliseconds(50))
        let completed = try await withThrowingTaskGroup(of: Int.self) { group in
          for _ in 0..<10_000 {
            group.addTask {
              try await clock.sleep(until: deadline)
              return 1
            }
          }
          return try await group.reduce(0, +)
        }
        #expect(completed == 10_000)
      }
    }

    @Test(arguments: allBackends)
    func injectedFaultsSurfaceAsTypedErrors(backend: IOBackend.Preference) async throws {
      try await expectNoDescriptorLeak {
        try await withEngine(backend, faultInjector: { $0 == "read" ? EIO : nil }) { engine in
          let file = try await IOFile.open("/proc/self/stat", on: engine)
          let error = await expectIOError(EIO) { _ = try await file.read(upTo: 1, at: 0) }
          #expect(error?.description == "read(fd \(file.descriptor)): Input/output error (EIO)")
          try await file.close()
        }
      }
    }

    @Test func theThreadBackendRetriesInterruptedCalls() async throws {
      let interruptions = Mutex(3)
      let injector: @Sendable (String) -> Int32? = { call in
        guard call == "open" else { return nil }
        return interruptions.withLock { remaining in
          guard remaining > 0 else { return nil }
          remaining -= 1
          return EINTR
        }
      }
      try await withEngine(.threads, faultInjector: injector) { engine in
        let file = try await IOFile.open("/proc/self/stat", on: engine)
        try await file.close()
      }
      let remaining = interruptions.withLock { $0 }
      #expect(remaining == 0)
    }

    @Test(arguments: allBackends)
    func shutdownEndsOperationsInFlight(backend: IOBackend.Preference) async throws {
      try await expectNoDescriptorLeak {
        let engine = try IOEngine(backend: backend, ringEntries: 64)
        let listener = try TCPSocket.listen(host: "127.0.0.1", port: 0, on: engine)
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let data = try await IOFile.open(
          directory.file("data"), options: [.read, .write, .create], on: engine)
        try await data.write(Array(repeating: 1, count: 64), at: 0)
        #expect(try await data.read(upTo: 16, at: 0).count == 16)
        let waiting = Task { try await listener.accept() }
        await engine.shutdown()
        // Even a read that the page cache could serve on the calling thread.
        await expectIOError(ECANCELED) { _ = try await data.read(upTo: 16, at: 0) }
        try await data.close()
        // Whether the accept reached the backend before the shutdown or not, it fails with
        // ECANCELED; nothing waits forever.
        await expectIOError(ECANCELED) { _ = try await waiting.value }
        await expectIOError(ECANCELED) {
          _ = try await IOFile.open("/proc/self/stat", on: engine)
        }
        try await listener.close()  // closes synchronously in the engine's absence
        #expect(engine.openResourceDescriptors == 0)
        #expect(engine.openBackendDescriptors == 0)
      }
    }

    @Test func manyConcurrentCancellationsLeaveNoTaskWaiting() async throws {
      for backend in allBackends {
        try await withEngine(backend) { engine in
          let clock = IOClock(engine: engine)
          let sleepers = (0..<500).map { _ in
            Task { try await clock.sleep(for: .seconds(3600)) }
          }
          for sleeper in sleepers { sleeper.cancel() }
          for sleeper in sleepers {
            await #expect(throws: CancellationError.self) { try await sleeper.value }
          }
        }
      }
    }
  }
}

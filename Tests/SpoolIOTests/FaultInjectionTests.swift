#if canImport(Glibc)
  import Glibc
#endif
import SpoolCore
@testable import SpoolIO
import Synchronization
import Testing

// Faults are injected into an engine each test creates for itself (`IOEngine(faults:)`), never
// into `IOEngine.shared` or a process-wide switch: suites of other modules use the shared
// engine in parallel with these tests, and no fault can reach them. `withEngine` checks
// afterwards that the engine closed every file and socket it opened and, after shutdown, its
// own ring and eventfds.

extension SpoolIOTests {
  @Suite struct FaultInjectionTests {
    @Test(arguments: allBackends)
    func interruptedCallsAreRetried(backend: IOBackend.Preference) async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      let plan = FaultPlan([
        "open": .times(.error(EINTR), 3),
        "write": .times(.error(EINTR), 3),
        "read": .times(.error(EINTR), 3),
        "stat": .times(.error(EINTR), 3),
      ])
      let bytes = (0..<1000).map { UInt8(truncatingIfNeeded: $0) }
      try await withEngine(backend, faults: plan.injector) { engine in
        let file = try await IOFile.open(
          directory.file("data"), options: [.read, .write, .create], on: engine)
        try await file.write(bytes, at: 0)
        #expect(try await file.readToEnd() == bytes)
        try await file.close()
      }
      for call in ["open", "write", "read", "stat"] {
        #expect(plan.injected(call) == 3, "\(call)")
      }
    }

    @Test func theRingRetriesInterruptedAndRefusedEnters() async throws {
      // `io_uring_enter` fails with EINTR when a signal arrives during the wait, and with
      // EAGAIN / EBUSY when the kernel is short of memory or completion-queue room.
      let plan = FaultPlan(["io_uring_enter": .times(.error(EINTR), 3)])
      let busy = FaultPlan(["io_uring_enter": .times(.error(EAGAIN), 3)])
      for plan in [plan, busy] {
        try await withEngine(.ioUring, faults: plan.injector) { engine in
          let file = try await IOFile.open("/proc/self/stat", on: engine)
          #expect(try await file.read(upTo: 1, at: 0).count == 1)
          try await file.close()
        }
        #expect(plan.injected("io_uring_enter") == 3)
      }
    }

    @Test(arguments: allBackends)
    func wouldBlockIsWaitedOutNeverSurfaced(backend: IOBackend.Preference) async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      let calls = ["read", "write", "accept", "recv", "send"]
      let plan = FaultPlan(Dictionary(uniqueKeysWithValues: calls.map {
        ($0, FaultPlan.Rule.times(.error(EAGAIN), 2))
      }))
      try await withEngine(backend, faults: plan.injector) { engine in
        let file = try await IOFile.open(
          directory.file("data"), options: [.read, .write, .create], on: engine)
        try await file.write(Array("spool".utf8), at: 0)
        #expect(try await file.read(upTo: 16, at: 0) == Array("spool".utf8))
        try await file.close()

        let listener = try TCPSocket.listen(host: "127.0.0.1", port: 0, on: engine)
        async let accepted = listener.accept()
        let client = try await TCPSocket.connect(
          host: "127.0.0.1", port: listener.localPort, on: engine)
        let server = try await accepted
        try await client.send(Array("ping".utf8))
        #expect(try await receive(4, from: server) == Array("ping".utf8))
        try await server.close()
        try await client.close()
        try await listener.close()
      }
      for call in calls {
        #expect(plan.injected(call) == 2, "\(call)")
      }
    }

    @Test(arguments: allBackends)
    func outOfMemoryIsAClearIOError(backend: IOBackend.Preference) async throws {
      let plan = FaultPlan([
        "open": .times(.error(ENOMEM), 1),
        "read": .times(.error(ENOMEM), 1),
        "socket": .times(.error(ENOMEM), 1),
      ])
      try await withEngine(backend, faults: plan.injector) { engine in
        let open = await expectIOError(ENOMEM) {
          _ = try await IOFile.open("/proc/self/stat", on: engine)
        }
        #expect(open?.operation == "open")
        #expect(open?.target == .path("/proc/self/stat"))
        #expect(open?.description.hasSuffix("(ENOMEM)") == true)

        let file = try await IOFile.open("/proc/self/stat", on: engine)
        let read = await expectIOError(ENOMEM) { _ = try await file.read(upTo: 8, at: 0) }
        #expect(read?.operation == "read")
        #expect(read?.target == .descriptor(file.descriptor))
        // The failure is not sticky: the next read succeeds.
        #expect(try await file.read(upTo: 8, at: 0).count == 8)
        try await file.close()

        let listen = await expectIOError(ENOMEM) {
          _ = try TCPSocket.listen(host: "127.0.0.1", port: 0, on: engine)
        }
        #expect(listen?.operation == "socket")
        #expect(listen?.target == .address("127.0.0.1:0"))
      }
    }

    @Test(arguments: allBackends)
    func shortTransfersAreCompletedWhereAllBytesArePromised(backend: IOBackend.Preference)
      async throws
    {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      let plan = FaultPlan([
        "read": .always(.shortTransfer(maximum: 7)),
        "write": .always(.shortTransfer(maximum: 5)),
        "send": .always(.shortTransfer(maximum: 3)),
        "recv": .always(.shortTransfer(maximum: 2)),
      ])
      let bytes = (0..<200).map { UInt8(truncatingIfNeeded: $0 &* 7) }
      try await withEngine(backend, faults: plan.injector) { engine in
        // `write(_:at:)` and `append(_:)` promise every byte: they go on until all are written.
        let path = directory.file("data")
        let file = try await IOFile.open(path, options: [.read, .write, .create], on: engine)
        try await file.write(bytes, at: 0)
        #expect(plan.injected("write") >= bytes.count / 5)
        // `read(upTo:at:)` returns a count: the short one.
        #expect(try await file.read(upTo: 100, at: 10) == Array(bytes[10..<17]))
        // `readToEnd()` goes on to the end of the file.
        #expect(try await file.readToEnd() == bytes)
        try await file.close()

        let log = try await IOFile.open(path, options: [.write, .append], on: engine)
        try await log.append(bytes)
        try await log.close()

        // The whole-file helpers loop too.
        let fileIO = FileIOClient.live(on: engine)
        #expect(try await fileIO.readFile(path) == bytes + bytes)
        try await fileIO.writeFileAtomically(path, Array(bytes.reversed()))
        #expect(try await fileIO.readFile(path) == Array(bytes.reversed()))

        // `send(_:)` promises every byte; `receive(upTo:)` returns what arrived (here at most
        // two bytes at a time).
        let listener = try TCPSocket.listen(host: "127.0.0.1", port: 0, on: engine)
        async let accepted = listener.accept()
        let client = try await TCPSocket.connect(
          host: "127.0.0.1", port: listener.localPort, on: engine)
        let server = try await accepted
        try await client.send(bytes)
        let first = try await server.receive(upTo: 100)
        #expect((1...2).contains(first.count))
        #expect(
          try await receive(bytes.count - first.count, from: server)
            == Array(bytes.dropFirst(first.count)))
        try await server.close()
        try await client.close()
        try await listener.close()
      }
      #expect(plan.injected("send") >= bytes.count / 3)
    }

    @Test(arguments: allBackends)
    func cancelledCompletionsAreAnErrorUnlessTheTaskWasCancelled(
      backend: IOBackend.Preference
    ) async throws {
      let plan = FaultPlan(["read": .times(.error(ECANCELED), 1)])
      try await withEngine(backend, faults: plan.injector) { engine in
        let file = try await IOFile.open("/proc/self/stat", on: engine)
        // Nobody cancelled the task: the kernel (or a shutdown) did. That is an error.
        let error = await expectIOError(ECANCELED) { _ = try await file.read(upTo: 8, at: 0) }
        #expect(error?.operation == "read")
        #expect(error?.target == .descriptor(file.descriptor))
        #expect(error?.description.hasSuffix("(ECANCELED)") == true)
        try await file.close()
      }
      #expect(plan.injected("read") == 1)
    }

    @Test(arguments: allBackends)
    func aCancelledCompletionOfACancelledTaskIsCancellation(backend: IOBackend.Preference)
      async throws
    {
      // The task is cancelled while its read is in the backend, and the read then completes
      // with -ECANCELED, as an in-kernel cancellation makes it do.
      let reader = Mutex<Task<[UInt8], any Error>?>(nil)
      let plan = FaultPlan(["read": .times(.error(ECANCELED), 1)]) { _ in
        reader.withLock { $0 }?.cancel()
      }
      try await withEngine(backend, faults: plan.injector) { engine in
        let file = try await IOFile.open("/proc/self/stat", on: engine)
        let started = Atomic<Bool>(false)
        let task = Task {
          while !started.load(ordering: .acquiring) { await Task.yield() }
          return try await file.read(upTo: 8, at: 0)
        }
        reader.withLock { $0 = task }
        started.store(true, ordering: .releasing)
        await #expect(throws: CancellationError.self) { _ = try await task.value }
        try await file.close()
      }
      #expect(plan.injected("read") == 1)
    }

    @Test(arguments: [ENOSYS, EPERM, ENOMEM])
    func aRingThatCannotBeCreatedFallsBackToThreads(errno: Int32) async throws {
      // ENOSYS: a kernel without io_uring; EPERM: seccomp or kernel.io_uring_disabled; ENOMEM:
      // the locked-memory limit is too low for the ring's queues.
      let plan = FaultPlan(["io_uring_setup": .always(.error(errno))])
      try await withEngine(.automatic, faults: plan.injector) { engine in
        #expect(engine.backend == .threads)
        if getenv("SPOOL_IO_BACKEND").map({ String(cString: $0) }) == "threads" {
          #expect(engine.fallbackReason == nil)  // forced: io_uring was not tried
        } else {
          #expect(engine.fallbackReason?.errno == errno)
          #expect(engine.fallbackReason?.operation == "io_uring_setup")
          #expect(plan.injected("io_uring_setup") == 1)
        }
        let file = try await IOFile.open("/proc/self/stat", on: engine)
        #expect(try await file.read(upTo: 1, at: 0).count == 1)
        try await file.close()
      }
      // Asking for io_uring explicitly reports why it cannot run.
      let refused = await expectIOError(errno) {
        _ = try IOEngine(backend: .ioUring, ringEntries: 64, faults: plan.injector)
      }
      #expect(refused?.operation == "io_uring_setup")
    }

    @Test func aRingWhoseEventfdFailsReleasesTheRing() async throws {
      // The ring is created, then its wake-up eventfd cannot be: nothing may stay open.
      let plan = FaultPlan(["eventfd": .times(.error(EMFILE), 1)])
      let ledger = DescriptorLedger()
      let refused = await expectIOError(EMFILE) {
        _ = try RingBackend(
          entries: 64, syscalls: SystemCalls(faultInjector: plan.injector, descriptors: ledger))
      }
      #expect(refused?.operation == "eventfd")
      #expect(ledger.openBackendDescriptors == 0)
    }

    @Test func aPoolThatCannotStartAWorkerFailsItsOperationsInsteadOfHanging() async throws {
      // pthread_create fails with EAGAIN at the process's thread limit.
      let plan = FaultPlan(["pthread_create": .always(.error(EAGAIN))])
      try await withEngine(.threads, faults: plan.injector) { engine in
        let error = await expectIOError(EAGAIN) {
          _ = try await IOFile.open("/proc/self/stat", on: engine)
        }
        #expect(error?.operation == "open")
      }
      #expect(plan.injected("pthread_create") == 1)
    }

    /// At the descriptor limit a new worker's eventfds cannot be made: the operation that
    /// needed the worker fails with that errno as its own `IOError`, nothing leaks (when the
    /// second eventfd fails, the first is closed), and the pool serves again once descriptors
    /// are back: the next submission starts a worker.
    @Test(arguments: [1, 2])
    func aPoolWithoutDescriptorsForAWorkerFailsTheOperationAndRecovers(
      failingEventfd: Int
    ) async throws {
      let calls = Mutex(0)
      let refusing = Mutex(true)
      let faults: IOFault.Injector = { call in
        guard call == "eventfd", refusing.withLock({ $0 }) else { return nil }
        let number = calls.withLock { calls -> Int in
          calls += 1
          return calls
        }
        return number >= failingEventfd ? .error(EMFILE) : nil
      }
      try await withEngine(.threads, faults: faults) { engine in
        for _ in 0..<2 {
          let error = await expectIOError(EMFILE) {
            _ = try await IOFile.open("/proc/self/stat", on: engine)
          }
          #expect(error?.operation == "open")
          #expect(error?.target == .path("/proc/self/stat"))
          #expect(engine.openBackendDescriptors == 0)
        }
        refusing.withLock { $0 = false }
        let file = try await IOFile.open("/proc/self/stat", on: engine)
        #expect(try await file.read(upTo: 8, at: 0).count == 8)
        try await file.close()
      }
      #expect(calls.withLock { $0 } >= failingEventfd)
    }

    @Test(arguments: allBackends)
    func theEngineCountsTheDescriptorsItOpens(backend: IOBackend.Preference) async throws {
      try await withEngine(backend) { engine in
        #expect(engine.openResourceDescriptors == 0)
        let file = try await IOFile.open("/proc/self/stat", on: engine)
        let listener = try TCPSocket.listen(host: "127.0.0.1", port: 0, on: engine)
        async let accepted = listener.accept()
        let client = try await TCPSocket.connect(
          host: "127.0.0.1", port: listener.localPort, on: engine)
        let server = try await accepted
        #expect(engine.openResourceDescriptors == 4)
        try await file.close()
        try await server.close()
        try await client.close()
        // What a test that forgot to close its listener would leave behind.
        #expect(engine.openResourceDescriptors == 1)
        try await listener.close()
        #expect(engine.openResourceDescriptors == 0)
        // A close that fails with EBADF released nothing.
        let bogus = IOFile(descriptor: 1 << 30, path: "bogus", engine: engine)
        await expectIOError(EBADF) { try await bogus.close() }
        #expect(engine.openResourceDescriptors == 0)
        if backend == .ioUring {
          #expect(engine.openBackendDescriptors > 0)  // the ring and its eventfd
        }
      }
      // `withEngine` expects `openBackendDescriptors == 0` once the engine has shut down.
    }

    /// Receives exactly `count` bytes (fewer only if the peer closes).
    private func receive(_ count: Int, from socket: TCPSocket) async throws -> [UInt8] {
      var bytes: [UInt8] = []
      while bytes.count < count {
        let chunk = try await socket.receive(upTo: count - bytes.count)
        if chunk.isEmpty { break }
        bytes += chunk
      }
      return bytes
    }
  }
}

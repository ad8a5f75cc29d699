import SpoolCore
import SpoolIO
import Testing

extension SpoolIOTests {
  @Suite struct IOClockTests {
    @Test(arguments: allBackends)
    func sleepReturnsAtOrAfterTheDeadline(backend: IOBackend.Preference) async throws {
      try await withEngine(backend) { engine in
        let clock = IOClock(engine: engine)
        let deadline = clock.now.advanced(by: .milliseconds(2))
        try await clock.sleep(until: deadline)
        #expect(clock.now >= deadline)
        // A deadline in the past returns at once.
        try await clock.sleep(until: deadline.advanced(by: .seconds(-1)))
        // So does one before the clock's origin, on both backends (the ring refuses a negative
        // time, the deadline is clamped before it gets there).
        let beforeTheOrigin = clock.now.advanced(by: .seconds(-1_000_000_000))
        #expect(beforeTheOrigin.nanoseconds < 0)
        try await clock.sleep(until: beforeTheOrigin)
      }
    }

    @Test(arguments: allBackends)
    func aCancelledSleepThrowsCancellation(backend: IOBackend.Preference) async throws {
      try await withEngine(backend) { engine in
        let clock = IOClock(engine: engine)
        let sleeper = Task { try await clock.sleep(for: .seconds(3600)) }
        while engine.operationsInFlight == 0 { await Task.yield() }
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
      }
    }

    @Test func worksAsAnyClockOfDuration() async throws {
      try await withEngine(.ioUring) { engine in
        let clock: any Clock<Duration> = IOClock(engine: engine)
        try await clock.sleep(for: .microseconds(100))
      }
    }
  }
}

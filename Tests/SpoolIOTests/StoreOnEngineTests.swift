#if canImport(Glibc)
  import Glibc
#endif
import SpoolCore
@testable import SpoolIO
import Synchronization
import Testing

extension SpoolIOTests {
  /// `Store(initialState:on:)`: a store whose reduce and effects run on the engine's thread.
  @Suite struct StoreOnEngineTests {
    /// Reads 16 bytes per `.read`; counts where its reduces and effects ran, and reduces that
    /// overlapped another.
    struct Reader: Reducer {
      struct State: Equatable, Sendable {
        var reduces = 0
        var reducesOffLoop = 0
        var reads = 0
        var readsOffLoop = 0
        var failures: [Int32] = []
      }
      enum Action: Equatable, Sendable {
        case read
        case didRead(bytes: Int, onLoop: Bool)
        case failed(errno: Int32)
        case count
      }

      let engine: IOEngine
      let file: IOFile
      let overlaps: Overlaps

      func reduce(into state: inout State, action: Action) -> Effect<Action> {
        overlaps.enter()
        defer { overlaps.leave() }
        state.reduces += 1
        if !engine.isOnLoopThread { state.reducesOffLoop += 1 }
        switch action {
        case .read:
          return .run { [engine, file] send in
            do {
              let bytes = try await file.read(upTo: 16, at: 0)
              await send(.didRead(bytes: bytes.count, onLoop: engine.isOnLoopThread))
            } catch let error as IOError {
              await send(.failed(errno: error.errno))
            }
          }
        case .didRead(let bytes, let onLoop):
          state.reads += bytes == 16 ? 1 : 0
          if !onLoop { state.readsOffLoop += 1 }
          return .none
        case .failed(let errno):
          state.failures.append(errno)
          return .none
        case .count:
          return .none
        }
      }
    }

    /// Counts reduces that began while another had not ended.
    final class Overlaps: Sendable {
      private let busy = Atomic<Bool>(false)
      private let seen = Atomic<Int>(0)
      func enter() {
        if busy.exchange(true, ordering: .acquiringAndReleasing) { seen.add(1, ordering: .relaxed) }
      }
      func leave() { busy.store(false, ordering: .releasing) }
      var count: Int { seen.load(ordering: .relaxed) }
    }

    /// A file of 4 KiB, opened for reading on `engine`.
    static func openData(on engine: IOEngine) async throws -> (IOFile, TemporaryDirectory) {
      let directory = TemporaryDirectory()
      let path = directory.file("data")
      let writer = try await IOFile.open(
        path, options: [.read, .write, .create, .truncate], on: engine)
      try await writer.write(Array(repeating: 3, count: 4_096), at: 0)
      try await writer.close()
      return (try await IOFile.open(path, on: engine), directory)
    }

    @Test func onTheRingReducesAndEffectsRunOnTheLoopThread() async throws {
      try await expectNoDescriptorLeak {
        try await withEngine(.ioUring) { engine in
          #expect(engine.storeExecutor != nil)
          let (file, directory) = try await Self.openData(on: engine)
          defer { directory.remove() }
          let overlaps = Overlaps()
          let store = Store(initialState: Reader.State(), on: engine) {
            Reader(engine: engine, file: file, overlaps: overlaps)
          }
          for _ in 0..<1_000 { store.enqueue(.read) }
          await store.send(.read)
          await store.finish()
          let state = await store.state
          #expect(state.reads == 1_001)
          #expect(state.reduces == 2_002)
          #expect(state.reducesOffLoop == 0)
          #expect(state.readsOffLoop == 0)
          #expect(overlaps.count == 0)
          try await file.close()
        }
      }
    }

    @Test func onTheThreadBackendItIsAStoreOnItsOwnQueue() async throws {
      try await withEngine(.threads) { engine in
        #expect(engine.storeExecutor == nil)
        let (file, directory) = try await Self.openData(on: engine)
        defer { directory.remove() }
        let store = Store(initialState: Reader.State(), on: engine) {
          Reader(engine: engine, file: file, overlaps: Overlaps())
        }
        for _ in 0..<100 { store.enqueue(.read) }
        await store.finish()
        let state = await store.state
        #expect(state.reads == 100)
        #expect(state.reducesOffLoop == state.reduces)
        try await file.close()
      }
    }

    /// After `shutdown()` of its engine, a store on it goes on reducing (on the cooperative
    /// pool, still one action at a time) and its I/O fails with `ECANCELED`.
    @Test(.timeLimit(.minutes(10)))
    func aStoreOutlivesTheShutdownOfItsEngine() async throws {
      let engine = try IOEngine(backend: .ioUring)
      let (file, directory) = try await Self.openData(on: engine)
      defer { directory.remove() }
      let overlaps = Overlaps()
      let store = Store(initialState: Reader.State(), on: engine) {
        Reader(engine: engine, file: file, overlaps: overlaps)
      }
      // Producers keep enqueueing while the engine shuts down and after.
      let producers = 4
      let perProducer = 5_000
      await withTaskGroup(of: Void.self) { group in
        for _ in 0..<producers {
          group.addTask {
            for index in 0..<perProducer {
              store.enqueue(.count)
              if index % 1_000 == 0 { await Task.yield() }
            }
          }
        }
        group.addTask { await engine.shutdown() }
      }
      await store.send(.read)
      await store.finish()
      let state = await store.state
      #expect(state.reduces == producers * perProducer + 2)
      #expect(state.failures == [ECANCELED])
      #expect(overlaps.count == 0)
      // Closed synchronously after the shutdown: no descriptor outlives the test.
      try await file.close()
    }

    /// Records the name of the thread each action is reduced on.
    struct ThreadNames: Reducer {
      struct State: Equatable, Sendable { var names: [String] = [] }
      enum Action: Equatable, Sendable { case record }
      func reduce(into state: inout State, action: Action) -> Effect<Action> {
        let fd = open("/proc/thread-self/comm", O_RDONLY)
        defer { close(fd) }
        var name = [UInt8](repeating: 0, count: 32)
        let count = read(fd, &name, name.count)
        state.names.append(String(decoding: name.prefix(max(count - 1, 0)), as: UTF8.self))
        return .none
      }
    }

    /// The store keeps its engine alive: with no other reference to the engine, its ring's
    /// thread still runs the store; the engine goes once the store does.
    @Test func aStoreKeepsItsEngineRunning() async throws {
      weak var weakEngine: IOEngine?
      do {
        var engine: IOEngine? = try IOEngine(backend: .ioUring)
        weakEngine = engine
        let store = Store(initialState: ThreadNames.State(), on: engine!) { ThreadNames() }
        engine = nil
        #expect(weakEngine != nil)
        store.enqueue(.record)
        await store.send(.record)
        #expect(await store.state.names == ["spool-io-ring", "spool-io-ring"])
      }
      // The executor (holding the engine) goes with the store's last job, which may still be
      // unwinding on the loop thread for a moment (a bound for a leak, far above that moment
      // on a loaded machine, not a timing the test asserts).
      let deadline = ContinuousClock.now + .seconds(120)
      while weakEngine != nil && ContinuousClock.now < deadline {
        try await Task.sleep(for: .milliseconds(1))
      }
      #expect(weakEngine == nil)
    }
  }
}

import Spool
import Synchronization
import Testing

/// A store given a serial executor of its own (`StoreOptions.executor`, which SpoolIO sets to
/// its event-loop thread) reduces on it, serially, and behaves as a store on its own queue.
@Suite struct StoreExecutorTests {
  /// Appends each action's value and fails the test if two reduces ever overlap.
  struct Recorder: Reducer {
    struct State: Equatable, Sendable {
      var values: [Int] = []
      var responses = 0
    }
    enum Action: Equatable, Sendable {
      case record(Int)
      case echo(Int)
      case echoed
    }

    let overlap: OverlapProbe

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      overlap.enter()
      defer { overlap.leave() }
      switch action {
      case .record(let value):
        state.values.append(value)
        return .none
      case .echo(let value):
        state.values.append(value)
        return .run { send in
          await Task.yield()
          await send(.echoed)
        }
      case .echoed:
        state.responses += 1
        return .none
      }
    }
  }

  /// Counts reduces that ran while another one was running.
  final class OverlapProbe: Sendable {
    private let active = Atomic<Int>(0)
    private let overlaps = Atomic<Int>(0)

    func enter() {
      if active.add(1, ordering: .acquiringAndReleasing).newValue != 1 {
        overlaps.add(1, ordering: .relaxed)
      }
      // Widen the window in which a second, concurrent reduce would be seen.
      for _ in 0..<64 { _ = active.load(ordering: .relaxed) }
    }

    func leave() { active.subtract(1, ordering: .acquiringAndReleasing) }

    var count: Int { overlaps.load(ordering: .relaxed) }
  }

  /// A `Recorder` store on a fresh ``PoolSerialExecutor``.
  static func makeStore() -> (
    Store<Recorder.State, Recorder.Action>, PoolSerialExecutor, OverlapProbe
  ) {
    let executor = PoolSerialExecutor()
    let overlap = OverlapProbe()
    let store = Store(
      initialState: Recorder.State(), options: StoreOptions(executor: executor)
    ) {
      Recorder(overlap: overlap)
    }
    return (store, executor, overlap)
  }

  @Test func aStoreReducesOnTheExecutorItWasGiven() async {
    let (store, executor, overlap) = Self.makeStore()
    store.enqueue(.record(1))
    await store.send(.record(2))
    store.enqueue(.echo(3))
    await store.finish()
    let state = await store.state
    #expect(state == Recorder.State(values: [1, 2, 3], responses: 1))
    #expect(executor.jobsRun > 0)
    #expect(overlap.count == 0)
  }

  /// More actions than one drain batch on a given executor (256), from producers on other
  /// threads and from `send`: every one reduced once, each producer's in order, none at the
  /// same time as another.
  @Test func actionsFromManyProducersAreReducedSeriallyAndInOrder() async {
    let (store, _, overlap) = Self.makeStore()
    let producers = 4
    let perProducer = 2_000
    await withTaskGroup(of: Void.self) { group in
      for producer in 0..<producers {
        group.addTask {
          for index in 0..<perProducer {
            let value = producer * perProducer + index
            if index % 100 == 0 {
              await store.send(.echo(value))
            } else {
              store.enqueue(.record(value))
            }
          }
        }
      }
    }
    await store.finish()
    let state = await store.state
    #expect(state.values.count == producers * perProducer)
    #expect(state.responses == producers * perProducer / 100)
    for producer in 0..<producers {
      let range = (producer * perProducer)..<((producer + 1) * perProducer)
      let mine = state.values.filter { range.contains($0) }
      #expect(mine == Array(range), "producer \(producer)'s actions out of order")
    }
    #expect(overlap.count == 0)
  }

  @Test func aScopedStoreSharesTheGivenExecutor() async {
    let executor = PoolSerialExecutor()
    let root = Store(initialState: Parent.State(), options: StoreOptions(executor: executor)) {
      Parent()
    }
    let child = root.scope(state: \.counter, action: \.counter)
    let jobsBefore = executor.jobsRun
    await child.send(.increment)
    #expect(executor.jobsRun > jobsBefore)
    child.enqueue(.increment)
    await child.finish()
    #expect(await root.state.counter.count == 2)
  }

  @Test func aStoreOnAGivenExecutorShutsDownAndDeinitializes() async {
    let executor = PoolSerialExecutor()
    weak var released: Store<Recorder.State, Recorder.Action>?
    do {
      let store = Store(
        initialState: Recorder.State(), options: StoreOptions(executor: executor)
      ) {
        Recorder(overlap: OverlapProbe())
      }
      released = store
      await store.send(.echo(1))
      await store.shutdown()
      await store.finish()
      #expect(store.runningEffectCount == 0)
    }
    #expect(released == nil)
  }
}

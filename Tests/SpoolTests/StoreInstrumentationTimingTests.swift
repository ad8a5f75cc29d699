#if canImport(Glibc)
  import Glibc
#endif
import Spool
import Synchronization
import Testing

/// `StoreInstrumentation.timesReduces`: an instrumentation that only needs arrival times gets
/// each action's enqueue time as its start and end; one that times reduces gets both ends.
@Suite struct StoreInstrumentationTimingTests {
  /// Keeps the three times of every reduced action.
  final class TimeLog: StoreInstrumentation {
    typealias Action = Int
    let timesReduces: Bool
    let times = Mutex<[(enqueued: UInt64, started: UInt64, ended: UInt64)]>([])

    init(timesReduces: Bool) {
      self.timesReduces = timesReduces
    }

    func actionReduced(_ action: Int, enqueuedAt: UInt64, startedAt: UInt64, endedAt: UInt64) {
      times.withLock { $0.append((enqueuedAt, startedAt, endedAt)) }
    }
    func effectStarted(by action: Int, at time: UInt64) {}
    func effectEnded(by action: Int, startedAt: UInt64, endedAt: UInt64, outcome: EffectOutcome) {}
  }

  /// Sums the values; a negative one sends its absolute value back through an effect, so that
  /// actions are reduced on the caller, from the queue and as an effect's synchronous send.
  struct Summing: Reducer {
    func reduce(into state: inout Int, action: Int) -> Effect<Int> {
      if action < 0 { return .send(-action) }
      state += action
      return .none
    }
  }

  /// 4 × 500 enqueued, 2 × 500 sent back by effects, 1 sent.
  static let reduced = 3_001

  static func run(_ log: TimeLog) async -> Int {
    let store = Store(initialState: 0, instrumentation: log) { Summing() }
    await withTaskGroup(of: Void.self) { group in
      for producer in 0..<4 {
        group.addTask {
          for value in 1...500 { store.enqueue(producer.isMultiple(of: 2) ? value : -value) }
        }
      }
    }
    await store.send(7)
    await store.finish()
    return await store.state
  }

  @Test func withoutReduceTimingEveryTimeIsTheEnqueueTime() async {
    let log = TimeLog(timesReduces: false)
    let sum = await Self.run(log)
    let times = log.times.withLock { $0 }
    // 2 producers add 1...500, 2 send them back through an effect, then 7.
    let expectedSum = 4 * 125_250 + 7
    #expect(sum == expectedSum)
    #expect(times.count == Self.reduced, "every action, the effects' sends included")
    #expect(times.allSatisfy { $0.enqueued > 0 && $0.started == $0.enqueued })
    #expect(times.allSatisfy { $0.ended == $0.enqueued })
  }

  /// The thread inside a test's `enqueue` call, while it is inside; `nil` otherwise.
  final class EnqueueWindow: Sendable {
    let thread = Mutex<pthread_t?>(nil)

    func enqueue(_ action: Int, into store: Store<Int, Int>) {
      thread.withLock { $0 = pthread_self() }
      store.enqueue(action)
      thread.withLock { $0 = nil }
    }
  }

  /// Counts in its state the actions reduced inside the window's `enqueue` on its thread.
  struct CountingCallerReduces: Reducer {
    let window: EnqueueWindow

    func reduce(into state: inout Int, action: Int) -> Effect<Int> {
      if window.thread.withLock({ $0 == pthread_self() }) { state += 1 }
      return .none
    }
  }

  /// An instrumentation that records every action without timing reduces (an action
  /// journal): an `enqueue` to an idle store pushes, and the drain loop reduces, never the
  /// caller's thread (`RootCore.reducesEnqueuesOnCaller`). `send` still reduces there.
  @Test func withoutReduceTimingAnEnqueueLeavesTheReduceToTheDrain() async {
    let window = EnqueueWindow()
    let log = TimeLog(timesReduces: false)
    let store = Store(initialState: 0, instrumentation: log) {
      CountingCallerReduces(window: window)
    }
    for action in 0..<50 {
      await store.finish()
      window.enqueue(action, into: store)
    }
    await store.finish()
    #expect(await store.state == 0, "actions reduced inside their enqueue")
    #expect(log.times.withLock { $0.count } == 50)
  }

  @Test func withReduceTimingTheReduceHasItsOwnTimes() async {
    let log = TimeLog(timesReduces: true)
    _ = await Self.run(log)
    let times = log.times.withLock { $0 }
    #expect(times.count == Self.reduced)
    // (Not `enqueued <= started`: the drain loop reads its start once for the next action,
    // which can be pushed after that read.)
    #expect(times.allSatisfy { $0.enqueued > 0 && $0.started <= $0.ended })
    #expect(times.contains { $0.started < $0.ended }, "some reduce took a clock tick")
  }
}

import Spool
import Synchronization
import Testing

/// `StoreInstrumentation.timingSampling`: a sampled store reports every action, times one in
/// N and reads no clock for the others.
@Suite struct StoreTimingSamplingTests {
  /// Keeps the times of the timed actions and counts the others.
  final class SampleLog: StoreInstrumentation {
    typealias Action = Int
    let timingSampling: TimingSampling
    let timesReduces: Bool
    let timed = Mutex<[(action: Int, enqueued: UInt64, started: UInt64, ended: UInt64)]>([])
    let counted = Mutex<[Int]>([])

    init(_ sampling: TimingSampling, timesReduces: Bool = true) {
      self.timingSampling = sampling
      self.timesReduces = timesReduces
    }

    func actionReduced(_ action: Int, enqueuedAt: UInt64, startedAt: UInt64, endedAt: UInt64) {
      timed.withLock { $0.append((action, enqueuedAt, startedAt, endedAt)) }
    }
    func actionCounted(_ action: Int) {
      counted.withLock { $0.append(action) }
    }
    func effectStarted(by action: Int, at time: UInt64) {}
    func effectEnded(by action: Int, startedAt: UInt64, endedAt: UInt64, outcome: EffectOutcome) {}
  }

  /// Sums the values; a negative one sends its absolute value back through an effect.
  struct Summing: Reducer {
    func reduce(into state: inout Int, action: Int) -> Effect<Int> {
      if action < 0 { return .send(-action) }
      state += action
      return .none
    }
  }

  @Test func sendToAnIdleStoreTimesEveryNthAction() async {
    let log = SampleLog(.oneIn(10))
    let store = Store(initialState: 0, instrumentation: log) { Summing() }
    for value in 1...1_000 { await store.send(value) }
    await store.finish()
    #expect(await store.state == 500_500)
    let timed = log.timed.withLock { $0 }
    let counted = log.counted.withLock { $0 }
    // Each `send` reduces on the caller, where the store counts: the 1st, 11th, 21st, … timed.
    #expect(timed.map(\.action) == Array(stride(from: 1, through: 1_000, by: 10)))
    #expect(counted.count == 900)
    #expect(Set(counted).isDisjoint(with: timed.map(\.action)))
    #expect(timed.allSatisfy { $0.enqueued > 0 && $0.enqueued == $0.started })
    #expect(timed.allSatisfy { $0.started <= $0.ended })
  }

  @Test func everyActionIsReportedOnceFromEveryPath() async {
    let log = SampleLog(.oneIn(4))
    let store = Store(initialState: 0, instrumentation: log) { Summing() }
    // 4 producers × 500 enqueued (on the caller, or queued when the store is held), 2 × 500
    // sent back by effects, 1 sent.
    await withTaskGroup(of: Void.self) { group in
      for producer in 0..<4 {
        group.addTask {
          for value in 1...500 { store.enqueue(producer.isMultiple(of: 2) ? value : -value) }
        }
      }
    }
    await store.send(7)
    await store.finish()
    #expect(await store.state == 4 * 125_250 + 7)
    let timed = log.timed.withLock { $0 }
    let counted = log.counted.withLock { $0 }
    #expect(timed.count + counted.count == 3_001)
    // One in four, give or take: 750 expected, a standard deviation of 24 for the queued
    // ones' random draw; the bounds are more than ten of them away.
    #expect((500...1_000).contains(timed.count), "timed \(timed.count) of 3,001")
    #expect(timed.allSatisfy { $0.enqueued > 0 && $0.started > 0 && $0.started <= $0.ended })
  }

  @Test func anInstrumentationThatNeedsEveryEnqueueTimeIsNotSampled() async {
    let log = SampleLog(.oneIn(8), timesReduces: false)
    let store = Store(initialState: 0, instrumentation: log) { Summing() }
    for value in 1...100 { store.enqueue(value) }
    await store.send(1)
    await store.finish()
    #expect(log.timed.withLock { $0.count } == 101)
    #expect(log.counted.withLock { $0.isEmpty })
  }

  @Test func everyActionIsTheDefault() {
    let log = SampleLog(.everyAction)
    #expect(log.timingSampling.interval == 1)
    #expect(!log.timingSampling.isSampled)
    #expect(TimingSampling.oneIn(64).description == "1 in 64")
    #expect(TimingSampling.oneIn(1) == .everyAction)
  }

  @Test func anIntervalBelowOneIsReportedAndTimesEveryAction() {
    var sampling: TimingSampling?
    withKnownIssue {
      sampling = .oneIn(0)
    }
    #expect(sampling == .everyAction)
  }
}

import CSpoolAllocationCounter
import Spool
import SpoolProfiling
import Testing

/// A sampling `LatencyRecorder` lets each store count the actions it does not time in cells
/// of its own (`StoreCaseCounts`); the recording adds them to the threads' counts, exactly,
/// whether the store is still alive or not.
@Suite struct StoreCaseCountsTests {
  enum Child: Sendable { case a, b }
  enum Action: Sendable { case tap, add(Int), child(Child) }

  struct Feature: Reducer {
    func reduce(into state: inout Int, action: Action) -> Effect<Action> {
      switch action {
      case .tap: state += 1
      case .add(let amount): state += amount
      case .child: state += 100
      }
      return .none
    }
  }

  static func counts(_ recording: LatencyRecording) -> [String: Int] {
    Dictionary(uniqueKeysWithValues: recording.actionCases.map { ($0.label, $0.count) })
  }

  @Test func aStoreCountsEveryActionOnceWhetherTimedOrNot() async {
    let recorder = LatencyRecorder<Action>(traceCapacity: 0, sampling: .oneIn(8))
    let store = Store(initialState: 0, instrumentation: recorder) { Feature() }
    for index in 0..<1_000 {
      store.enqueue(.tap)
      store.enqueue(.add(index % 3))
      if index % 4 == 0 { store.enqueue(.child(index % 8 == 0 ? .a : .b)) }
    }
    #expect(await store.state == 1_000 + 999 + 250 * 100)
    let recording = recorder.recording()
    #expect(
      Self.counts(recording) == ["tap": 1_000, "add": 1_000, "child(.a)": 125, "child(.b)": 125])
    #expect(recording.actions == 2_250)
  }

  @Test func countsOfAStoreThatWentAwayStay() throws {
    let recorder = LatencyRecorder<Action>(traceCapacity: 0, sampling: .oneIn(64))
    do {
      let counts = try #require(recorder.makeStoreCaseCounts())
      for _ in 0..<5 { #expect(counts.count(Action.tap)) }
      for _ in 0..<3 { #expect(counts.count(Action.add(2))) }
      // A nested case is labeled case by case by the recorder: the store calls it instead.
      #expect(!counts.count(Action.child(.a)))
      #expect(Self.counts(recorder.recording()) == ["tap": 5, "add": 3])
    }
    // The cells are gone; their counts are the recorder's.
    let other = try #require(recorder.makeStoreCaseCounts())
    #expect(other.count(Action.tap))
    #expect(Self.counts(recorder.recording()) == ["tap": 6, "add": 3])
  }

  @Test func aRecorderThatTimesEveryActionHandsOutNoCells() {
    let recorder = LatencyRecorder<Action>(sampling: .everyAction)
    #expect(recorder.makeStoreCaseCounts() == nil)
  }

  @Test func anActionTypeWithOneCaseCountsInOneCell() throws {
    enum Single: Sendable { case only }
    let recorder = LatencyRecorder<Single>(traceCapacity: 0, sampling: .oneIn(4))
    let counts = try #require(recorder.makeStoreCaseCounts())
    for _ in 0..<7 { #expect(counts.count(Single.only)) }
    #expect(Self.counts(recorder.recording()) == ["only": 7])
  }

  @Test(
    .enabled(
      if: cspool_allocation_counting_enabled() != 0, "no counting malloc under a sanitizer"))
  func countingAllocatesNothing() throws {
    let recorder = LatencyRecorder<Action>(traceCapacity: 0, sampling: .oneIn(64))
    let counts = try #require(recorder.makeStoreCaseCounts())
    let before = cspool_thread_allocations()
    var counted = 0
    for index in 0..<20_000 where counts.count(index % 2 == 0 ? Action.tap : .add(index)) {
      counted += 1
    }
    let allocations = cspool_thread_allocations() - before
    #expect(allocations == 0, "\(allocations) allocations for 20,000 actions")
    #expect(counted == 20_000)
  }
}

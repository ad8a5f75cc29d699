import CSpoolAllocationCounter
import Spool
import SpoolProfiling
import Testing

private enum Action: Sendable { case tap, load(Int), child }

/// Once a thread has recorded an action of a top-level case, recording more of them
/// allocates nothing: counted (on this thread, by the counting `malloc` of the test
/// executable), not timed.
@Suite(
  .enabled(
    if: cspool_allocation_counting_enabled() != 0, "no counting malloc under a sanitizer"))
struct LatencyRecorderAllocationTests {
  static let actions = 20_000

  @Test(arguments: [TimingSampling.everyAction, .oneIn(64)])
  func recordingAndCountingAllocateNothingPerAction(sampling: TimingSampling) {
    let recorder = LatencyRecorder<Action>(traceCapacity: 1_024, sampling: sampling)
    // Top-level cases, the lock-free path (a nested case takes the recorder's lock to find
    // its slot).
    let cases: [Action] = [.tap, .load(7), .child]
    // First sight of each case on this thread: the slow path learns it and makes the cells.
    for action in cases {
      recorder.actionReduced(action, enqueuedAt: 1, startedAt: 2, endedAt: 3)
      recorder.actionCounted(action)
    }
    let before = cspool_thread_allocations()
    // Times from a plain counter: iterating a `Range<UInt64>` allocates in debug builds.
    var time: UInt64 = 10
    for index in 0..<Self.actions {
      let action = cases[index % 3]
      time &+= 37
      recorder.actionReduced(
        action, enqueuedAt: time, startedAt: time &+ 5, endedAt: time &+ 20 &+ time % 1_000)
      recorder.actionCounted(action)
    }
    let allocations = cspool_thread_allocations() - before
    #expect(allocations == 0, "\(allocations) allocations for \(Self.actions) actions")
    let recording = recorder.recording()
    #expect(recording.actions == 2 * (Self.actions + cases.count))
    #expect(recording.actionCases.map(\.count).reduce(0, +) == recording.actions)
  }

  @Test func theCountingMallocCounts() {
    let before = cspool_thread_allocations()
    let array = [Int](repeating: 1, count: 1_000)
    #expect(cspool_thread_allocations() > before)
    #expect(array.count == 1_000)
  }
}

import Foundation
import Spool
import SpoolProfiling
import Synchronization
import Testing

/// Threads recording into one recorder at once, each into cells of its own: the recording
/// adds them up to exactly what one thread recording the same actions would have.
@Suite struct LatencyRecorderConcurrencyTests {
  enum Action: Sendable, Equatable { case tap, load, child(Child) }
  enum Child: Sendable, Equatable { case toggle, pick(Int) }

  static let threads = 4
  /// Enough for the threads to overlap each other and the reader many times; few enough that
  /// four threads flat out do not starve other suites (under ThreadSanitizer as well).
  static let actionsPerThread = 20_000
  static let traceCapacity = 256

  /// Thread `thread`'s `index`th action: three cases (one nested, which takes the recorder's
  /// slow path), one in five only counted (sampling), latencies spread over four decades.
  static func script(_ thread: Int, _ index: Int) -> (
    action: Action, timed: Bool, enqueuedAt: UInt64, queueWait: UInt64, reduce: UInt64
  ) {
    let actions: [Action] = [.tap, .load, .child(.pick(thread))]
    let waits: [UInt64] = [40, 1_200, 75_000, 3_000_000, 90]
    let reduces: [UInt64] = [25, 310, 8_800, 640_000]
    let enqueuedAt = UInt64(1_000 + thread * 7 + index * 100)
    return (
      actions[(thread + index) % 3], index % 5 != 4, enqueuedAt,
      waits[(index / 3) % 5] + UInt64(thread), reduces[(index / 7) % 4] + UInt64(index % 11)
    )
  }

  static func record(_ thread: Int, _ index: Int, into recorder: LatencyRecorder<Action>) {
    let step = script(thread, index)
    if step.timed {
      let startedAt = step.enqueuedAt + step.queueWait
      recorder.actionReduced(
        step.action, enqueuedAt: step.enqueuedAt, startedAt: startedAt,
        endedAt: startedAt + step.reduce)
    } else {
      recorder.actionCounted(step.action)
    }
  }

  /// The same script, every thread's actions one after another on the calling thread.
  static func serialRecording() -> LatencyRecording {
    let recorder = LatencyRecorder<Action>(traceCapacity: traceCapacity)
    for thread in 0..<threads {
      for index in 0..<actionsPerThread { record(thread, index, into: recorder) }
    }
    return recorder.recording()
  }

  @Test func threadsRecordingAtOnceAddUpToTheSerialRecording() async throws {
    let recorder = LatencyRecorder<Action>(traceCapacity: Self.traceCapacity)
    let finished = Finished()
    // Threads, not tasks: each records on a thread of its own, at the same time as the others
    // and as the reader, whatever the width of the test's task pool.
    for thread in 0..<Self.threads {
      Thread.detachNewThread {
        finished.started.add(1, ordering: .relaxed)
        while finished.started.load(ordering: .relaxed) < Self.threads { sched_yield() }
        for index in 0..<Self.actionsPerThread { Self.record(thread, index, into: recorder) }
        finished.count.add(1, ordering: .releasing)
      }
    }
    // A reader taking live recordings meanwhile: counts only grow, and every trace row is a
    // whole sample of a known case.
    let labels: Set<String> = ["tap", "load", "child(.pick)"]
    var previous = 0
    var readings = 0
    while finished.count.load(ordering: .acquiring) < Self.threads {
      let live = recorder.recording()
      #expect(live.actions >= previous)
      previous = live.actions
      #expect(live.trace.allSatisfy { labels.contains($0.name) })
      #expect(live.trace.count <= 2 * Self.traceCapacity)
      readings += 1
      // Paces the reader; not a wait for a result.
      try await Task.sleep(for: .milliseconds(2))
    }
    #expect(readings > 0)

    // Every thread's last store happened-before the acquiring load above.
    let concurrent = recorder.recording()
    let serial = Self.serialRecording()
    #expect(concurrent.actions == Self.threads * Self.actionsPerThread)
    #expect(concurrent.actions == serial.actions)
    #expect(concurrent.actionCases.map(\.label) == ["child(.pick)", "load", "tap"])
    #expect(concurrent.actionCases == serial.actionCases)
    #expect(concurrent.firstEnqueueNanoseconds == serial.firstEnqueueNanoseconds)
    #expect(concurrent.lastEndNanoseconds == serial.lastEndNanoseconds)
    #expect(concurrent.trace.count == 2 * Self.traceCapacity)
    #expect(serial.trace.count == 2 * Self.traceCapacity)
  }

  /// Counts every action; the recorder sees them through a real store.
  struct Counter: Reducer {
    struct State: Equatable, Sendable { var count = 0 }

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      state.count += 1
      return .none
    }
  }

  @Test func storesOnSeveralExecutorsShareOneRecorderExactly() async {
    let recorder = LatencyRecorder<Action>(sampling: .oneIn(8))
    let stores = 6
    let actionsPerStore = 3_000
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<stores {
        group.addTask {
          let store = Store(initialState: Counter.State(), instrumentation: recorder) {
            Counter()
          }
          for index in 0..<actionsPerStore {
            store.enqueue(index.isMultiple(of: 3) ? .child(.toggle) : .tap)
          }
          await store.finish()
        }
      }
    }
    let recording = recorder.recording()
    let counts = Dictionary(
      uniqueKeysWithValues: recording.actionCases.map { ($0.label, $0.count) })
    #expect(recording.actions == stores * actionsPerStore)
    #expect(counts["child(.toggle)"] == stores * actionsPerStore / 3)
    #expect(counts["tap"] == stores * actionsPerStore * 2 / 3)
    #expect(recording.timingSampling == .oneIn(8))
    // Timed: some, drawn at random for queued actions, never all.
    let timed = recording.actionCases.map(\.reduce.count).reduce(0, +)
    #expect(timed > 0 && timed < stores * actionsPerStore)
  }
}

private final class Finished: Sendable {
  let started = Atomic<Int>(0)
  let count = Atomic<Int>(0)
}

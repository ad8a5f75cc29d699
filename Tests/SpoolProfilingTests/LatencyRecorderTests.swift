import Spool
import SpoolProfiling
import Testing

private enum Action: Sendable { case tap, load, child(Child) }
private enum Child: Sendable { case toggle }

@Suite struct LatencyRecorderTests {
  @Test func recordsQueueWaitAndReducePerCase() throws {
    let recorder = LatencyRecorder<Action>()
    for index in 0..<100 {
      let enqueued = UInt64(index) * 1_000
      recorder.actionReduced(
        .tap, enqueuedAt: enqueued, startedAt: enqueued + 200, endedAt: enqueued + 250)
    }
    recorder.actionReduced(.child(.toggle), enqueuedAt: 0, startedAt: 10, endedAt: 5_010)
    let recording = recorder.recording()
    #expect(recording.actions == 101)
    #expect(recording.actionCases.map(\.label) == ["child(.toggle)", "tap"])
    let tap = try #require(recording.actionCases.last)
    #expect(tap.count == 100)
    #expect(tap.queueWait.p50Nanoseconds == 200)
    #expect(tap.queueWait.meanNanoseconds == 200)
    #expect(tap.reduce.p99Nanoseconds == 50)
    #expect(tap.reduce.maxNanoseconds == 50)
    #expect(tap.reduce.distribution.count == LatencySummary.curvePercentiles.count)
    let child = try #require(recording.actionCases.first)
    #expect(child.reduce.p50Nanoseconds >= 4_950 && child.reduce.p50Nanoseconds <= 5_050)
    #expect(recording.firstEnqueueNanoseconds == 0)
    #expect(recording.lastEndNanoseconds == 99_250)
  }

  @Test func countsEffectOutcomesAndLifetimes() throws {
    let recorder = LatencyRecorder<Action>()
    for _ in 0..<4 { recorder.effectStarted(by: .load, at: 100) }
    recorder.effectEnded(by: .load, startedAt: 100, endedAt: 1_100, outcome: .finished)
    recorder.effectEnded(by: .load, startedAt: 100, endedAt: 2_100, outcome: .cancelled)
    recorder.effectEnded(by: .load, startedAt: 100, endedAt: 3_100, outcome: .failed)
    let effect = try #require(recorder.recording().effects.first)
    #expect(effect.label == "load")
    #expect(effect.started == 4)
    #expect([effect.finished, effect.cancelled, effect.failed] == [1, 1, 1])
    #expect(effect.inFlight == 1)
    #expect(effect.lifetime.count == 3)
    #expect(effect.lifetime.maxNanoseconds >= 2_990 && effect.lifetime.maxNanoseconds <= 3_010)
  }

  @Test func effectsEndingOnManyThreadsAreAllCounted() async throws {
    let recorder = LatencyRecorder<Action>()
    await withTaskGroup(of: Void.self) { group in
      for task in 0..<8 {
        group.addTask {
          for index in 0..<1_000 {
            let start = UInt64(task * 1_000 + index)
            recorder.effectStarted(by: .load, at: start)
            recorder.effectEnded(
              by: .load, startedAt: start, endedAt: start + 100,
              outcome: index.isMultiple(of: 2) ? .finished : .cancelled)
          }
        }
      }
    }
    let effect = try #require(recorder.recording().effects.first)
    #expect(effect.started == 8_000)
    #expect(effect.finished == 4_000)
    #expect(effect.cancelled == 4_000)
    #expect(effect.lifetime.count == 8_000)
  }

  @Test func clockSkewedTimestampsCountAsZero() throws {
    let recorder = LatencyRecorder<Action>()
    recorder.actionReduced(.tap, enqueuedAt: 500, startedAt: 400, endedAt: 300)
    let tap = try #require(recorder.recording().actionCases.first)
    #expect(tap.queueWait.maxNanoseconds == 0)
    #expect(tap.reduce.maxNanoseconds == 0)
  }

  @Test func theTraceSampleIsBounded() {
    let recorder = LatencyRecorder<Action>(traceCapacity: 8)
    for index in 0..<10_000 {
      let time = UInt64(index) * 100
      recorder.actionReduced(.tap, enqueuedAt: time, startedAt: time + 10, endedAt: time + 20)
    }
    let trace = recorder.recording().trace
    // A queue wait and a reduce for each of the last 8 actions.
    #expect(trace.count == 16)
    #expect(trace.first?.startNanoseconds == 9_992 * 100)
    #expect(Set(trace.map(\.kind)) == [.queueWait, .reduce])
  }

  @Test func aRecordingIncludesSignpostsWhenAsked() {
    let recorder = LatencyRecorder<Action>(traceCapacity: 0)
    let signposter = Signposter(capacity: 4)
    signposter.isEnabled = true
    signposter.event("mark")
    #expect(recorder.recording(signposter: signposter).trace.map(\.name) == ["mark"])
    #expect(recorder.recording().trace.isEmpty)
  }

  @Test func aWorkloadReportTakesItsFiguresFromARecording() {
    let recorder = LatencyRecorder<Action>()
    recorder.actionReduced(.tap, enqueuedAt: 0, startedAt: 1, endedAt: 2)
    recorder.actionReduced(.tap, enqueuedAt: 2, startedAt: 3, endedAt: 4)
    let workload = WorkloadReport(
      name: "counter", parameters: ["actions": "2"], durationSeconds: 0.5,
      recording: recorder.recording())
    #expect(workload.actions == 2)
    #expect(workload.throughputPerSecond == 4)
    #expect(workload.actionCases.map(\.label) == ["tap"])
  }
}

import SpoolProfiling
import Testing

private struct Failure: Error {}

@Suite struct SignposterTests {
  @Test func aDisabledSignposterRecordsNothing() {
    let signposter = Signposter(capacity: 4)
    let interval = signposter.begin("work")
    #expect(interval.startNanoseconds == 0)
    signposter.end(interval)
    signposter.event("mark")
    #expect(signposter.withInterval("scoped") { 42 } == 42)
    #expect(signposter.intervals().isEmpty)
  }

  @Test func intervalsAndEventsAreRecordedInOrder() {
    let signposter = Signposter(capacity: 16)
    signposter.isEnabled = true
    let interval = signposter.begin("outer")
    signposter.event("mark")
    signposter.end(interval)
    let recorded = signposter.intervals()
    #expect(recorded.map(\.name) == ["mark", "outer"])
    #expect(recorded.map(\.kind) == [.event, .interval])
    #expect(recorded[0].durationNanoseconds == 0)
    #expect(recorded[1].startNanoseconds <= recorded[0].startNanoseconds)
    #expect(Set(recorded.map(\.track)) == ["thread 1"])
  }

  @Test func withIntervalEndsTheIntervalWhenTheBodyThrows() {
    let signposter = Signposter(capacity: 4)
    signposter.isEnabled = true
    #expect(throws: Failure.self) {
      try signposter.withInterval("failing") { throw Failure() }
    }
    #expect(signposter.intervals().map(\.name) == ["failing"])
  }

  @Test func asyncIntervals() async {
    let signposter = Signposter(capacity: 4)
    signposter.isEnabled = true
    let value = await signposter.withInterval("async") { await Task.yield(); return 7 }
    #expect(value == 7)
    #expect(signposter.intervals().map(\.name) == ["async"])
  }

  @Test func theRingKeepsTheMostRecentRecords() {
    let signposter = Signposter(capacity: 3)
    signposter.isEnabled = true
    for _ in 0..<5 { signposter.event("old") }
    signposter.event("new")
    #expect(signposter.intervals().map(\.name) == ["old", "old", "new"])
    signposter.removeAll()
    #expect(signposter.intervals().isEmpty)
  }
}

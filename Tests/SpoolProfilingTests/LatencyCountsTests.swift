import Testing

@testable import SpoolProfiling

@Suite struct LatencyCountsTests {
  @Test func indicesMatchHdrHistogramBucketBoundaries() {
    let histogram = LatencyHistogram.latency()
    var generator = SeededGenerator(seed: 7)
    for _ in 0..<20_000 {
      let value = generator.next() >> (generator.next() % 64)
      let clamped = min(value, LatencyHistogram.maximumLatency)
      let lowest = LatencyCounts.lowestValue(at: LatencyCounts.index(of: clamped))
      #expect(lowest == histogram.lowestEquivalentForValue(clamped))
    }
  }

  @Test func aFoldedHistogramEqualsOneThatRecordedEveryValue() {
    let arena = LatencyCountsArena()
    let counts = arena.make()
    var direct = LatencyHistogram.latency()
    var generator = SeededGenerator(seed: 42)
    for index in 0..<50_000 {
      // Mostly tens of nanoseconds, a tail to milliseconds, a few zeros and huge values.
      let value: UInt64 =
        switch index % 100 {
        case 0: 0
        case 1: 10_000_000_000_000
        case 2..<10: generator.next() % 5_000_000
        default: 20 + generator.next() % 200
        }
      counts.record(value)
      direct.recordLatency(value)
    }
    let folded = counts.histogram()
    #expect(counts.total == 50_000)
    #expect(folded.totalCount == direct.totalCount)
    #expect(folded.min == direct.min)
    #expect(folded.max == direct.max)
    #expect(folded.maxRecorded == direct.maxRecorded)
    #expect(LatencySummary(folded) == LatencySummary(direct))
    withExtendedLifetime(arena) {}
  }

  @Test func theLengthCoversTheLatencyRange() {
    #expect(LatencyCounts.length == LatencyCounts.index(of: LatencyHistogram.maximumLatency) + 1)
  }

  @Test func emptyCountsFoldIntoAnEmptyHistogram() {
    let arena = LatencyCountsArena()
    let counts = arena.make()
    #expect(counts.histogram().totalCount == 0)
    #expect(LatencySummary(counts.histogram()) == .empty)
    withExtendedLifetime(arena) {}
  }
}

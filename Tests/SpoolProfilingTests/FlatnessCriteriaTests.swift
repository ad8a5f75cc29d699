import Testing

@testable import SpoolProfiling

/// The flatness verdict on synthetic timelines: what counts as flat, what as growth, and what
/// is too short to judge.
@Suite struct FlatnessCriteriaTests {
  static let mebibyte = 1_048_576

  /// `count` samples one second apart; each figure given per index.
  static func timeline(
    count: Int = 30,
    resident: (Int) -> Int = { _ in 40 * mebibyte },
    queueWaitP99: (Int) -> UInt64 = { _ in 200_000 },
    reduceP99: (Int) -> UInt64 = { _ in 2_000 },
    counterReduceP99: ((Int) -> UInt64)? = nil,
    liveEffects: (Int) -> Int = { _ in 50 },
    actions: (Int) -> Int = { _ in 10_000 }
  ) -> [TimelineSample] {
    (0..<count).map { index in
      let counterReduce = counterReduceP99?(index) ?? reduceP99(index)
      return TimelineSample(
        elapsedSeconds: Double(index + 1), durationSeconds: 1, residentBytes: resident(index),
        actions: actions(index), liveEffects: liveEffects(index),
        queueWait: IntervalLatency(
          p50Nanoseconds: queueWaitP99(index) / 10, p99Nanoseconds: queueWaitP99(index),
          maxNanoseconds: queueWaitP99(index) * 2),
        reduce: IntervalLatency(
          p50Nanoseconds: 500, p99Nanoseconds: max(reduceP99(index), counterReduce),
          maxNanoseconds: max(reduceP99(index), counterReduce) * 2),
        features: [
          TimelineFeatureSample(
            name: "counter", actions: actions(index) / 2, liveEffects: 0,
            queueWaitP99Nanoseconds: queueWaitP99(index), reduceP99Nanoseconds: counterReduce),
          TimelineFeatureSample(
            name: "effects", actions: actions(index) / 2, liveEffects: liveEffects(index),
            queueWaitP99Nanoseconds: queueWaitP99(index),
            reduceP99Nanoseconds: reduceP99(index)),
        ])
    }
  }

  private func check(
    _ verdict: FlatnessVerdict, _ metric: FlatnessCheck.Metric
  ) throws -> FlatnessCheck {
    try #require(verdict.checks.first { $0.metric == metric })
  }

  @Test func aFlatTimelineIsFlat() throws {
    // Noise of ±1 MiB and ±30% around constant levels.
    let samples = Self.timeline(
      resident: { 40 * Self.mebibyte + ($0 % 3 - 1) * Self.mebibyte },
      queueWaitP99: { 200_000 + UInt64($0 % 4) * 20_000 },
      reduceP99: { 2_000 + UInt64($0 % 5) * 150 },
      liveEffects: { 40 + $0 % 20 })
    let verdict = FlatnessCriteria().verdict(for: samples)
    #expect(verdict.outcome == .flat)
    #expect(verdict.warmUpSamples == 3)
    #expect(verdict.windowSamples == 9)
    #expect(verdict.checks.map(\.metric) == FlatnessCheck.Metric.allCases)
    #expect(verdict.grown.isEmpty)
  }

  @Test func growingMemoryIsNamed() throws {
    let samples = Self.timeline(resident: { 40 * Self.mebibyte + $0 * Self.mebibyte })
    let verdict = FlatnessCriteria().verdict(for: samples)
    #expect(verdict.outcome == .grew)
    #expect(verdict.grown.map(\.metric) == [.residentBytes])
    let memory = try check(verdict, .residentBytes)
    // Medians of samples 3…11 and 21…29.
    #expect(memory.first == Double(47 * Self.mebibyte))
    #expect(memory.last == Double(65 * Self.mebibyte))
    #expect(memory.description.hasPrefix("RSS grew: 47.0 MiB → 65.0 MiB"))
  }

  @Test func growingLatencyIsNamedWithItsFeature() throws {
    let samples = Self.timeline(counterReduceP99: { 2_000 + UInt64($0) * 2_000 })
    let verdict = FlatnessCriteria().verdict(for: samples)
    #expect(verdict.outcome == .grew)
    #expect(verdict.grown.map(\.metric) == [.reduceP99Nanoseconds])
    let reduce = try check(verdict, .reduceP99Nanoseconds)
    #expect(reduce.feature == "counter")
    #expect(reduce.description.contains("reduce p99 grew"))
    #expect(reduce.description.hasSuffix(" in counter"))
  }

  @Test func growingQueueWaitAndLiveEffectsAreNamed() {
    let samples = Self.timeline(
      queueWaitP99: { 1_000_000 + UInt64($0) * 1_000_000 }, liveEffects: { 50 + $0 * 100 })
    let verdict = FlatnessCriteria().verdict(for: samples)
    #expect(
      Set(verdict.grown.map(\.metric)) == [.queueWaitP99Nanoseconds, .liveEffects])
    #expect(verdict.grown.first { $0.metric == .liveEffects }?.feature == "effects")
  }

  @Test func effectsThatComeAndGoWithWindowsAreFlat() {
    // In flight at a random point of a window: anywhere from 9 to 1,009; the lowest stays.
    let samples = Self.timeline(liveEffects: { 9 + ($0 * 7_919) % 1_001 })
    let verdict = FlatnessCriteria().verdict(for: samples)
    let effects = verdict.checks.first { $0.metric == .liveEffects }
    #expect(effects?.statistic == .minimum)
    #expect(effects?.grew == false)
    #expect(verdict.outcome == .flat)
  }

  @Test func growthUnderTheFloorIsFlat() {
    // Reduce p99 triples but by less than 10 µs; RSS grows 20% but by less than 4 MiB.
    let samples = Self.timeline(
      resident: { 10 * Self.mebibyte + ($0 >= 15 ? 2 * Self.mebibyte : 0) },
      reduceP99: { $0 >= 15 ? 3_000 : 1_000 })
    let verdict = FlatnessCriteria().verdict(for: samples)
    #expect(verdict.outcome == .flat)
  }

  @Test func oneSpikeInTheLastThirdDoesNotDecide() {
    let samples = Self.timeline(
      resident: { $0 == 27 ? 90 * Self.mebibyte : 40 * Self.mebibyte },
      reduceP99: { $0 == 28 ? 5_000_000 : 2_000 })
    #expect(FlatnessCriteria().verdict(for: samples).outcome == .flat)
  }

  @Test func theWarmUpIsLeftOut() {
    // Memory climbs over the first 12 samples, then stays.
    let samples = Self.timeline(resident: { $0 < 12 ? 10 * Self.mebibyte : 60 * Self.mebibyte })
    #expect(FlatnessCriteria().verdict(for: samples).outcome == .grew)
    var criteria = FlatnessCriteria()
    criteria.warmUpFraction = 0.4
    let verdict = criteria.verdict(for: samples)
    #expect(verdict.warmUpSamples == 12)
    #expect(verdict.outcome == .flat)
  }

  @Test func idleIntervalsDoNotCountForLatency() {
    // Two intervals in three of the first third reduced nothing (their p99 is 0).
    func idle(_ index: Int) -> Bool { index < 12 && !index.isMultiple(of: 3) }
    let samples = Self.timeline(
      reduceP99: { idle($0) ? 0 : 2_000 }, actions: { idle($0) ? 0 : 10_000 })
    let verdict = FlatnessCriteria().verdict(for: samples)
    #expect(verdict.checks.first { $0.metric == .reduceP99Nanoseconds }?.first == 2_000)
    #expect(verdict.outcome == .flat)
  }

  @Test func tooFewSamplesAreNotJudged() {
    let verdict = FlatnessCriteria().verdict(for: Self.timeline(count: 6))
    #expect(verdict.outcome == .tooShort)
    #expect(verdict.checks.isEmpty)
    #expect(FlatnessCriteria().verdict(for: []).outcome == .tooShort)
    #expect(FlatnessCriteria().verdict(for: Self.timeline(count: 7)).outcome == .flat)
  }
}

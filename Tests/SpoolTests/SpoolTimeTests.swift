import CSpoolTime
import Testing

@testable import SpoolCore

/// The instrumentation's time source agrees with `CLOCK_MONOTONIC`, whichever source it uses.
@Suite struct SpoolTimeTests {
  /// The smallest distance between `SpoolTime.now()` and `CLOCK_MONOTONIC` over a few tries:
  /// one try can be preempted between its two reads; the best cannot be, every time.
  func closestDistance(tries: Int = 20) -> UInt64 {
    _ = SpoolTime.now()  // calibrates, if the counter is used
    var best = UInt64.max
    for _ in 0..<tries {
      let before = SpoolTime.monotonicNanoseconds()
      let now = SpoolTime.now()
      let after = SpoolTime.monotonicNanoseconds()
      let distance: UInt64
      if now < before {
        distance = before - now
      } else if now > after {
        distance = now - after
      } else {
        distance = 0
      }
      best = min(best, distance)
    }
    return best
  }

  @Test func readsTheMonotonicTimeline() {
    let distance = closestDistance()
    // The documented bound: 50 µs (the calibration's reads) plus 0.1% of the time since the
    // calibration (the counter's rate is known to 0.1%). The process may have calibrated long
    // before this test runs.
    let clock = CounterClock.shared
    let sinceCalibration =
      clock.isEnabled ? SpoolTime.monotonicNanoseconds() - clock.baseNanoseconds : 0
    #expect(distance < 50_000 + sinceCalibration / 1_000, "source: \(SpoolTime.source)")
  }

  /// `SpoolTime.now()` and `CLOCK_MONOTONIC` at one moment, from the try whose clock reads
  /// were closest together.
  func pairedReading() -> (spool: UInt64, monotonic: UInt64) {
    var best: (spool: UInt64, monotonic: UInt64, span: UInt64) = (0, 0, .max)
    for _ in 0..<100 {
      let before = SpoolTime.monotonicNanoseconds()
      let now = SpoolTime.now()
      let after = SpoolTime.monotonicNanoseconds()
      if after - before < best.span { best = (now, before + (after - before) / 2, after - before) }
    }
    return (best.spool, best.monotonic)
  }

  @Test func measuresDurationsAsTheMonotonicClockDoes() async throws {
    _ = SpoolTime.now()
    let start = pairedReading()
    try await Task.sleep(for: .milliseconds(300))
    let end = pairedReading()
    let spool = Double(end.spool - start.spool)
    let monotonic = Double(end.monotonic - start.monotonic)
    // The documented bound: 0.1%.
    #expect(abs(spool - monotonic) / monotonic < 0.001, "source: \(SpoolTime.source)")
  }

  @Test func neverGoesBackwardsOnOneThread() {
    var previous = SpoolTime.now()
    for _ in 0..<100_000 {
      let next = SpoolTime.now()
      #expect(next >= previous)
      if next < previous { break }
      previous = next
    }
  }

  /// `SpoolTime.now()` reads the calibration from C words: they hold what `CounterClock`
  /// measured, and a reading through them lies between two through the Swift calibration.
  @Test func readsThroughThePublishedCalibration() {
    let clock = CounterClock.shared
    let published = cspool_counter_clock_published()
    #expect(published.state == (clock.isEnabled ? 1 : 2))
    guard clock.isEnabled else { return }
    #expect(published.base_ticks == clock.baseTicks)
    #expect(published.base_nanoseconds == clock.baseNanoseconds)
    #expect(published.scale == clock.scale)
    for _ in 0..<1_000 {
      let before = clock.nanoseconds(ticks: cspool_ticks())
      let reading = cspool_counter_nanoseconds()
      let after = clock.nanoseconds(ticks: cspool_ticks())
      #expect(before <= reading && reading <= after)
      if reading < before || reading > after { break }
    }
  }

  @Test func aCounterReadBeforeTheBaseReadsAsTheBase() {
    let clock = CounterClock(
      isEnabled: true, baseTicks: 1_000, baseNanoseconds: 5_000, scale: 1 << 32)
    #expect(clock.nanoseconds(ticks: 999) == 5_000)
    #expect(clock.nanoseconds(ticks: 1_000) == 5_000)
    #expect(clock.nanoseconds(ticks: 3_000) == 7_000)
  }

  @Test func scalingDoesNotOverflowOverYears() {
    // 0.3 ns per tick (a 3.3 GHz counter), ten years of ticks.
    let scale = UInt64((0.3 * 4_294_967_296).rounded())
    let clock = CounterClock(isEnabled: true, baseTicks: 0, baseNanoseconds: 0, scale: scale)
    let tenYearsOfTicks: UInt64 = 3_300_000_000 * 86_400 * 3_650
    let nanoseconds = clock.nanoseconds(ticks: tenYearsOfTicks)
    let expected = Double(tenYearsOfTicks) * 0.3
    #expect(abs(Double(nanoseconds) - expected) / expected < 1e-6)
  }
}

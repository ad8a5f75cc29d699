import SpoolCore
import Synchronization

/// What one `SpoolTime.now()` costs on this machine: the price an instrumented store pays for
/// each clock read.
///
/// Reads the clock ``readsPerRepetition`` times back to back, timed by `CLOCK_MONOTONIC`
/// around the loop; a repetition's figure is its nanoseconds per read, and the result is the
/// median of ``repetitions`` repetitions, so that a repetition the scheduler interrupted does
/// not count. The first reading of `SpoolTime` calibrates its counter (2 ms) before any
/// timing.
///
/// Why a report carries it: a store that times every action reads the clock twice per action
/// (in a drain, one of the two on the producer's thread), so this figure sets the floor of
/// what timing every action costs a cheap reducer (`spool bench instrumentation`'s
/// `spool-clock-only` row). It depends on the source: a `clock_gettime` call
/// (`SPOOL_TIME_SOURCE=clock`) cost more than twice a counter read on a 2-core AMD EPYC VM
/// (31.1 against 11.7 ns, the report format's article).
///
/// ```swift
/// if let nanoseconds = ClockReadCost.measure() {
///   print("a clock read costs \(nanoseconds) ns")
/// }
/// ```
enum ClockReadCost {
  /// Clock reads per repetition: about a millisecond of reads with the counter.
  static let readsPerRepetition = 100_000
  /// Repetitions whose median is the figure.
  static let repetitions = 5

  /// Keeps the readings' sum, so that the compiler cannot drop the reads as unused.
  private static let sink = Atomic<UInt64>(0)

  /// The median nanoseconds per `SpoolTime.now()`, or `nil` when no repetition could be timed
  /// (a monotonic clock that did not advance across one).
  static func measure() -> Double? {
    var sum = SpoolTime.now()
    var figures: [Double] = []
    for _ in 0..<repetitions {
      let start = SpoolTime.monotonicNanoseconds()
      for _ in 0..<readsPerRepetition { sum &+= SpoolTime.now() }
      let end = SpoolTime.monotonicNanoseconds()
      guard end > start else { continue }
      figures.append(Double(end - start) / Double(readsPerRepetition))
    }
    sink.store(sum, ordering: .relaxed)
    guard !figures.isEmpty else { return nil }
    return figures.sorted()[figures.count / 2]
  }
}

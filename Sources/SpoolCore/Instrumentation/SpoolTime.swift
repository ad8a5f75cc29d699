import CSpoolTime

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The time source of Spool's instrumentation: nanoseconds, on the timeline of
/// `CLOCK_MONOTONIC`.
///
/// Where the processor has a constant-rate counter that the kernel trusts as its own clock (on
/// x86-64: the TSC, with `constant_tsc` and `nonstop_tsc`, and `tsc` as the current clock
/// source; on AArch64: the generic timer), a reading is one counter read and a multiply. The
/// counter's rate is measured once, against `CLOCK_MONOTONIC`, over 2 ms at the first reading
/// (which therefore takes 2 ms); durations then agree with `CLOCK_MONOTONIC`'s to within
/// 0.1% (tested by `SpoolTimeTests`), and readings drift from it by as much. Elsewhere, or
/// with `SPOOL_TIME_SOURCE=clock` in the environment, a reading is one
/// `clock_gettime(CLOCK_MONOTONIC)`.
///
/// Why the counter: on a VM a counter read costs about a third of a `clock_gettime` call, and
/// an instrumented store reads the time twice per timed action (at enqueue, or before a reduce
/// on the producer's thread, and after the reduce), the largest part of what instrumentation
/// costs a cheap reducer (`spool bench instrumentation`). ``source`` says which source is in
/// use; `spool bench` prints it with what one read costs.
///
/// ```swift
/// let start = SpoolTime.now()
/// doWork()
/// let elapsedNanoseconds = SpoolTime.now() - start
/// ```
public enum SpoolTime {
  /// The current time in nanoseconds.
  @inlinable
  public static func now() -> UInt64 {
    // The calibration as C words (`cspool_counter_clock`): reading them costs no check of
    // a lazy global, which cost about as much as the counter read itself.
    let counted = cspool_counter_nanoseconds()
    if _fastPath(counted != 0) { return counted }
    return nowWithoutPublishedCounter()
  }

  /// ``now()`` before the counter's calibration is published (its first reading calibrates),
  /// or where the counter is not the clock.
  @usableFromInline
  static func nowWithoutPublishedCounter() -> UInt64 {
    let counter = CounterClock.shared
    if counter.isEnabled {
      return counter.nanoseconds(ticks: cspool_ticks())
    }
    return monotonicNanoseconds()
  }

  /// Where ``now()`` gets the time from.
  public enum Source: String, Sendable {
    /// The processor's counter, scaled to nanoseconds.
    case counter
    /// `clock_gettime(CLOCK_MONOTONIC)`.
    case monotonicClock
  }

  /// The source ``now()`` reads.
  ///
  /// ```swift
  /// print(SpoolTime.source)  // counter
  /// ```
  public static var source: Source {
    CounterClock.shared.isEnabled ? .counter : .monotonicClock
  }

  /// `clock_gettime(CLOCK_MONOTONIC)` in nanoseconds.
  @inlinable
  public static func monotonicNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
  }
}

/// The processor's counter, scaled to nanoseconds of `CLOCK_MONOTONIC`.
///
/// `nanoseconds = baseNanoseconds + (ticks - baseTicks) × nanosecondsPerTick`, the factor in
/// 32.32 fixed point and the product taken at full width, so that it cannot overflow however
/// long the process runs.
@usableFromInline
struct CounterClock: Sendable {
  @usableFromInline let isEnabled: Bool
  @usableFromInline let baseTicks: UInt64
  @usableFromInline let baseNanoseconds: UInt64
  /// Nanoseconds per tick, times 2³².
  @usableFromInline let scale: UInt64

  /// The calibration, made on first use and published to `cspool_counter_clock` for
  /// ``SpoolTime/now()``.
  @usableFromInline
  static let shared: CounterClock = {
    let clock = CounterClock.calibrated()
    cspool_counter_clock_publish(
      clock.baseTicks, clock.baseNanoseconds, clock.scale, clock.isEnabled ? 1 : 0)
    return clock
  }()

  static let disabled = CounterClock(
    isEnabled: false, baseTicks: 0, baseNanoseconds: 0, scale: 0)

  /// How long the first reading measures the counter's rate.
  static let calibrationNanoseconds: UInt64 = 2_000_000

  @inlinable
  func nanoseconds(ticks: UInt64) -> UInt64 {
    // A counter read on another core a moment earlier than the calibration's base reads as
    // the base, not as a time 500 years later.
    let elapsed = ticks >= baseTicks ? ticks &- baseTicks : 0
    let (high, low) = elapsed.multipliedFullWidth(by: scale)
    return baseNanoseconds &+ (high << 32 | low >> 32)
  }

  /// Measures the counter against `CLOCK_MONOTONIC`, or returns ``disabled`` when the
  /// counter cannot be trusted here.
  static func calibrated() -> CounterClock {
    guard counterIsTrusted() else { return .disabled }
    let start = sample()
    var end = sample()
    while end.nanoseconds &- start.nanoseconds < calibrationNanoseconds { end = sample() }
    guard end.ticks > start.ticks else { return .disabled }
    let nanosecondsPerTick =
      Double(end.nanoseconds &- start.nanoseconds) / Double(end.ticks &- start.ticks)
    // A rate outside 10 MHz to 100 GHz is not a clock: some virtual machines report zeros.
    guard nanosecondsPerTick > 0.01, nanosecondsPerTick < 100 else { return .disabled }
    return CounterClock(
      isEnabled: true, baseTicks: end.ticks, baseNanoseconds: end.nanoseconds,
      scale: UInt64((nanosecondsPerTick * 4_294_967_296).rounded()))
  }

  /// A counter reading and the monotonic time at that moment: the middle of two clock reads
  /// around it, from the try whose two reads were closest (a thread preempted between them
  /// would put the middle microseconds off).
  static func sample() -> (ticks: UInt64, nanoseconds: UInt64) {
    var best: (ticks: UInt64, nanoseconds: UInt64, span: UInt64) = (0, 0, .max)
    for _ in 0..<64 {
      let before = SpoolTime.monotonicNanoseconds()
      let ticks = cspool_ticks()
      let after = SpoolTime.monotonicNanoseconds()
      let span = after &- before
      if span < best.span { best = (ticks, before &+ span / 2, span) }
      if span < 500 { break }
    }
    return (best.ticks, best.nanoseconds)
  }

  /// Whether this machine's counter runs at a constant rate, keeps running in sleep states,
  /// and is synchronized between cores: on Linux/x86-64, when the kernel itself uses it as
  /// its clock source.
  static func counterIsTrusted() -> Bool {
    if let forced = getenv("SPOOL_TIME_SOURCE"), String(cString: forced) == "clock" {
      return false
    }
    guard cspool_ticks_available() != 0 else { return false }
    #if arch(x86_64)
      guard
        let source = readFile("/sys/devices/system/clocksource/clocksource0/current_clocksource"),
        source.trimmingSuffixWhitespace() == "tsc",
        let cpuinfo = readFile("/proc/cpuinfo")
      else { return false }
      let flags = cpuinfo.split(separator: "\n").first { $0.hasPrefix("flags") } ?? ""
      let words = Set(flags.split(separator: " ").map(String.init))
      return words.contains("constant_tsc") && words.contains("nonstop_tsc")
    #else
      return true
    #endif
  }

  /// The contents of a small system file, or `nil`.
  static func readFile(_ path: String) -> String? {
    guard let file = fopen(path, "r") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4_096)
    while true {
      let count = fread(&buffer, 1, buffer.count, file)
      if count <= 0 { break }
      bytes += buffer[..<count]
      // /proc/cpuinfo lists every core; the first core's flags are within the first 64 KiB.
      if bytes.count >= 65_536 { break }
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}

extension String {
  fileprivate func trimmingSuffixWhitespace() -> Substring {
    var end = endIndex
    while end > startIndex, self[index(before: end)].isWhitespace { end = index(before: end) }
    return self[..<end]
  }
}

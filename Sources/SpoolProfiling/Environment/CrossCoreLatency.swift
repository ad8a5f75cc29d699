import CSpoolAffinity
import SpoolCore
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// How long one cache line takes to go from one core to another and back: the machine's price
/// of handing work between threads.
///
/// Two threads, pinned to two different CPUs of the process's affinity mask (its first two),
/// bounce one `Atomic<Int>` that is alone on its cache line: the first writes an odd value and
/// spins until it reads the next even one, which the second writes as soon as it sees the odd.
/// Each round trip therefore moves the line to the other core and back. The round trips are
/// timed in batches of ``batchSize``; a repetition's figure is the median of its batches'
/// nanoseconds per round trip, and the result is the median of ``repetitions`` repetitions.
///
/// Why a report carries it: every figure of a store that hands actions or effects between
/// threads (an enqueue from one core, a reduce on another, a `.run` that sends back) pays this
/// transfer, so it sets the floor of those figures. It differs several-fold between machines
/// (one socket or two, one core complex or several, a VM whose virtual CPUs move between host
/// cores), which makes ratios measured on two machines incomparable even when their core
/// counts agree; `spool compare` warns when it differs.
///
/// Bounded in time: a repetition stops after ``roundTrips`` round trips or ``repetitionBudget``
/// nanoseconds, whichever comes first, so the whole measurement takes a few hundred
/// milliseconds at most, even on a busy machine (and is abandoned after ``timeLimit``).
///
/// Why batches: on a machine shared with other work, or a VM whose virtual CPUs are
/// descheduled now and then, one thread may be off its CPU for milliseconds while the other
/// spins. A whole repetition's mean counts that as latency, and under load it varies
/// several-fold from run to run; the median batch leaves it out and stays steady. What remains
/// is the price of a transfer when both threads run.
///
/// ```swift
/// if let nanoseconds = CrossCoreLatency.measure() {
///   print("cross-core round trip: \(nanoseconds) ns")
/// }
/// ```
enum CrossCoreLatency {
  /// Round trips per repetition, at most.
  static let roundTrips = 100_000
  /// Round trips timed together: one clock read per batch costs well under 1% of it.
  static let batchSize = 256
  /// Repetitions whose median is the figure.
  static let repetitions = 5
  /// The longest a repetition runs, in nanoseconds, however few round trips it made.
  static let repetitionBudget: UInt64 = 50_000_000
  /// The longest the whole measurement may take before it is abandoned (`nil`): a thread that
  /// the scheduler keeps off its CPU for this long would otherwise spin forever.
  static let timeLimit: UInt64 = 2_000_000_000

  /// The median round trip in nanoseconds, or `nil` when fewer than two CPUs are allowed (in
  /// the calling thread's affinity mask: the process's, unless the thread was pinned), a
  /// thread could not be started or pinned, or ``timeLimit`` passed.
  ///
  /// Blocks the calling thread while the two measuring threads run; it is never pinned itself.
  static func measure() -> Double? {
    guard let cpus = allowedCPUs(), cpus.count >= 2 else { return nil }
    let line = CacheLine()
    let deadline = SpoolTime.monotonicNanoseconds() + timeLimit
    let asker = Outcome()
    let answerer = Outcome()
    // An answerer that cannot be pinned still answers (its outcome voids the figure), so that
    // the asker is never left waiting; an asker that cannot be pinned stops both at once.
    guard
      let answering = startThread({
        answerer.pinned = pinCurrentThread(to: cpus[1])
        answerer.finished = answer(line, deadline: deadline)
      })
    else { return nil }
    guard
      let asking = startThread({
        guard pinCurrentThread(to: cpus[0]) else {
          line.store(CacheLine.stop)
          return
        }
        asker.pinned = true
        asker.figures = ask(line, deadline: deadline)
        asker.finished = asker.figures != nil
      })
    else {
      line.store(CacheLine.stop)
      pthread_join(answering, nil)
      return nil
    }
    pthread_join(asking, nil)
    pthread_join(answering, nil)
    // pthread_join ordered the threads' writes to the outcomes before these reads.
    guard asker.pinned, answerer.pinned, asker.finished, answerer.finished,
      let figures = asker.figures, !figures.isEmpty
    else { return nil }
    // Tenths of a nanosecond are already below what one run can tell.
    return (figures.sorted()[figures.count / 2] * 10).rounded() / 10
  }

  /// Restricts the calling thread to `cpu` (`pthread_setaffinity_np`); whether it worked.
  static func pinCurrentThread(to cpu: Int) -> Bool {
    cspool_pin_current_thread(Int32(cpu)) == 0
  }

  /// The CPUs of the calling thread's affinity mask (`sched_getaffinity`), in increasing order,
  /// or `nil` when the call fails.
  static func allowedCPUs() -> [Int]? {
    var cpus = [Int32](repeating: 0, count: 256)
    var count = cspool_allowed_cpus(&cpus, Int32(cpus.count))
    if count > Int32(cpus.count) {
      cpus = [Int32](repeating: 0, count: Int(count))
      count = cspool_allowed_cpus(&cpus, Int32(cpus.count))
    }
    guard count >= 0, count <= Int32(cpus.count) else { return nil }
    return cpus.prefix(Int(count)).map(Int.init)
  }

  /// The asking side: a warm-up, then ``repetitions`` timed repetitions; each figure is the
  /// median of the repetition's batches, in nanoseconds per round trip. `nil` when the deadline
  /// passed. Always ends by storing ``CacheLine/stop``, which ends the answering side.
  private static func ask(_ line: CacheLine, deadline: UInt64) -> [Double]? {
    defer { line.store(CacheLine.stop) }
    var value = 0
    // One round trip: an odd value out, the next even value back.
    func roundTrip() -> Bool {
      value += 1
      line.store(value)
      value += 1
      var spins: UInt32 = 0
      while line.load() != value {
        spins &+= 1
        if spins & 0xFFFF == 0, SpoolTime.monotonicNanoseconds() > deadline { return false }
      }
      return true
    }
    // The warm-up waits for the other thread to start and brings both cores out of idle.
    for _ in 0..<1_000 {
      guard roundTrip() else { return nil }
    }
    var figures: [Double] = []
    var batches: [Double] = []
    batches.reserveCapacity(roundTrips / batchSize)
    for _ in 0..<repetitions {
      batches.removeAll(keepingCapacity: true)
      let start = SpoolTime.monotonicNanoseconds()
      var batchStart = start
      while batches.count < roundTrips / batchSize {
        for _ in 0..<batchSize {
          guard roundTrip() else { return nil }
        }
        let now = SpoolTime.monotonicNanoseconds()
        batches.append(Double(now - batchStart) / Double(batchSize))
        batchStart = now
        if now - start > repetitionBudget { break }
      }
      batches.sort()
      figures.append(batches[batches.count / 2])
    }
    return figures
  }

  /// The answering side: writes back the next even value as soon as it reads an odd one, until
  /// it reads ``CacheLine/stop``. `false` when the deadline passed first.
  private static func answer(_ line: CacheLine, deadline: UInt64) -> Bool {
    var expected = 1
    var spins: UInt32 = 0
    while true {
      let seen = line.load()
      if seen == expected {
        line.store(expected + 1)
        expected += 2
      } else if seen == CacheLine.stop {
        return true
      } else {
        spins &+= 1
        if spins & 0xFFFF == 0, SpoolTime.monotonicNanoseconds() > deadline { return false }
      }
    }
  }

  /// What one measuring thread found. Each field is written only by its thread, before the
  /// thread ends; the caller reads it only after `pthread_join`, which orders the two.
  private final class Outcome {
    var pinned = false
    var finished = false
    /// The asker's nanoseconds per round trip, one per repetition.
    var figures: [Double]?
  }

  /// Starts a joinable thread running `body`; `nil` when `pthread_create` fails. The caller
  /// joins it (`pthread_join`), which also orders the thread's writes before the caller's
  /// reads.
  static func startThread(_ body: @escaping () -> Void) -> pthread_t? {
    final class Box {
      let body: () -> Void
      init(_ body: @escaping () -> Void) { self.body = body }
    }
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    var thread = pthread_t()
    let result = pthread_create(
      &thread, nil,
      { argument in
        Unmanaged<Box>.fromOpaque(argument!).takeRetainedValue().body()
        return nil
      }, box)
    guard result == 0 else {
      Unmanaged<Box>.fromOpaque(box).release()
      return nil
    }
    return thread
  }
}

/// One `Atomic<Int>` alone on its cache line: 128 bytes aligned to 128, so that neither the
/// line nor its neighbour, which some processors fetch in pairs, holds anything else.
///
/// `@unchecked Sendable`, and safe: `storage` is set once in `init` and never reassigned; the
/// memory it points to is only ever touched through `Atomic`'s operations, which are safe from
/// any thread; and it is released in `deinit`, when no thread holds a reference any more.
private final class CacheLine: @unchecked Sendable {
  /// What the asking side stores to end the answering side.
  static let stop = -1

  private let storage: UnsafeMutablePointer<Atomic<Int>>

  init() {
    let raw = UnsafeMutableRawPointer.allocate(byteCount: 128, alignment: 128)
    storage = raw.bindMemory(to: Atomic<Int>.self, capacity: 1)
    storage.initialize(to: Atomic(0))
  }

  deinit {
    storage.deinitialize(count: 1)
    UnsafeMutableRawPointer(storage).deallocate()
  }

  /// The value, with acquiring ordering: what the other side wrote before it is visible.
  func load() -> Int {
    storage.pointee.load(ordering: .acquiring)
  }

  /// Stores `value`, with releasing ordering.
  func store(_ value: Int) {
    storage.pointee.store(value, ordering: .releasing)
  }
}

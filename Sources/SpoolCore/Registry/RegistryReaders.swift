import CSpoolTime
import Synchronization

/// The reads in progress of a registry's published snapshots (``RegistrySnapshot``), and the
/// snapshots taken down but perhaps still read: a snapshot is released only once no read that
/// could have found it is left.
///
/// A read counts itself on the counter of its thread (``RegistryReaderLine``), so that two
/// threads reading at once write no common cache line. The counters come in two sets, and the
/// registry's phase says which set a read uses; the phase only advances once the set it is
/// about to switch to has been seen empty, so that each set empties soon after it was left.
///
/// Why a snapshot is released only when no read can hold it (every operation on the counters,
/// on `RegistryShard.published` and on the phase is sequentially consistent, so they all fall
/// in one total order S):
/// 1. A read that loads snapshot X loads it before X is taken down (the exchange that takes it
///    down comes after the load in S, or the load would not return X). The read counted
///    itself on counter C before that load, so its increment of C precedes the take-down in S.
/// 2. X is retired with the phase p read after the take-down (with the lock of `retired`
///    held, which every advance of the phase holds too: the advance from p comes after), and
///    released once the phase is at least p + 2. Each of the two advances from p to p + 2
///    first saw every counter of one set at zero, and the two advances saw the two sets: each
///    counter C was seen at zero by a load that follows the take-down in S.
/// 3. Each read increments and then decrements the same counter, so a counter holds the
///    number of reads between the two; a load of C that follows a read's increment and
///    precedes its decrement in S reads at least 1. So the zero seen in 2 follows the
///    decrement of every read of X in S: every read of X ended before X is released, and the
///    decrement (a release) synchronizes with the load that saw zero (an acquire), so the
///    read's accesses to X happen before X's release.
/// Which set a read counts on (the phase it read, with relaxed order, perhaps stale) does not
/// matter to the proof, since both sets are seen empty; the sets only make the wait short:
/// once the phase has moved on, new reads leave the old set alone.
@usableFromInline
final class RegistryReaders: Sendable {
  /// Advanced by ``reclaim()`` alone; its low bit picks the set of counters a read uses.
  @usableFromInline let phase = Atomic<Int>(0)
  /// One counter line per thread number (`cspool_registry_reader_number`), modulo their count.
  let lines: [RegistryReaderLine]
  /// The same lines, for the read path, which so takes no reference count: `lines` keeps them.
  @usableFromInline let unretainedLines: [Unmanaged<RegistryReaderLine>]
  /// `lines.count - 1`.
  @usableFromInline let mask: Int
  /// The snapshots taken down and not released yet, each with the phase after it was taken
  /// down.
  let retired = Mutex<[(phase: Int, snapshot: any AnyObject & Sendable)]>([])
  /// `retired.count`, to skip the lock when nothing waits.
  let retiredCount = Atomic<Int>(0)

  /// Four counter lines per core, at least 16: one per thread that reads at once, in a pool
  /// of a thread or two per core, each alone on its line.
  convenience init() {
    var count = 16
    while count < 4 * ProcessInfoCores.active { count *= 2 }
    self.init(lineCount: count)
  }

  init(lineCount: Int) {
    precondition(
      lineCount > 0 && lineCount & (lineCount - 1) == 0,
      "Internal inconsistency: a registry's reader line count must be a power of two")
    lines = (0..<lineCount).map { _ in RegistryReaderLine() }
    unretainedLines = lines.map { Unmanaged.passUnretained($0) }
    mask = lineCount - 1
  }

  /// Runs `body`, a read of published snapshots, counted: no snapshot that `body` loads from
  /// `RegistryShard.published` is released before `body` returns.
  @inlinable
  func read<Result>(_ body: () throws -> Result) rethrows -> Result {
    let line = Int(truncatingIfNeeded: cspool_registry_reader_number()) & mask
    return try unretainedLines[line]._withUnsafeGuaranteedRef { line in
      let odd = phase.load(ordering: .relaxed) & 1 != 0
      line.enter(odd: odd)
      defer { line.exit(odd: odd) }
      return try body()
    }
  }

  /// Keeps `snapshot`, taken down from a shard, until no read can hold it; called after the
  /// exchange that took it down (the proof's step 2 reads the phase after it). Also for a
  /// slot whose eviction ended: its last reference then goes in ``reclaim()``, after every
  /// read that found it in a snapshot (each snapshot with it was taken down before the
  /// eviction began), so that those reads' accesses to it happen before it is freed.
  func retire(_ snapshot: (any AnyObject & Sendable)?) {
    guard let snapshot else { return }
    retired.withLock { retired in
      retired.append((phase.load(ordering: .sequentiallyConsistent), snapshot))
      retiredCount.store(retired.count, ordering: .relaxed)
    }
  }

  /// Advances the phase as far as the counters allow (two steps at most, without waiting) and
  /// releases the snapshots retired two phases ago or earlier; call it outside the shards'
  /// locks (releasing a snapshot may release stores).
  func reclaim() {
    guard retiredCount.load(ordering: .relaxed) > 0 else { return }
    let released = retired.withLock { retired -> [any AnyObject & Sendable] in
      let current = advanceLocked()
      var released: [any AnyObject & Sendable] = []
      retired.removeAll { entry in
        guard current &- entry.phase >= 2 else { return false }
        released.append(entry.snapshot)
        return true
      }
      retiredCount.store(retired.count, ordering: .relaxed)
      return released
    }
    // The last references to the snapshots go here, outside the lock.
    withExtendedLifetime(released) {}
  }

  /// Waits until every read in progress when it is called has ended: a grace period, for a
  /// change that reads may have missed (a store taken for eviction, the shutdown flag).
  ///
  /// The proof is the one above, with the change in place of the take-down: the phase is read
  /// after the change, and two advances from there each saw one set of counters at zero
  /// after it; a read that began before the change (its increment precedes the change in S)
  /// and has not ended holds its counter above zero. Polls, with a pause that grows to a
  /// millisecond: reads are short (a lookup, or a synchronous body that uses a store).
  func waitForReadsInProgress() async {
    let start = phase.load(ordering: .sequentiallyConsistent)
    var pause = Duration.microseconds(20)
    while retired.withLock({ _ in advanceLocked() }) &- start < 2 {
      do {
        try await Task.sleep(for: pause)
      } catch {
        // Cancelled: the reads still have to end; keep waiting without the sleep.
        await Task.yield()
      }
      pause = min(pause * 2, .milliseconds(1))
    }
  }

  /// Advances the phase as far as the counters allow, two steps at most, and returns it; with
  /// the lock of `retired` held, so that ``retire(_:)`` reads the phase between advances.
  private func advanceLocked() -> Int {
    for _ in 0..<2 {
      let current = phase.load(ordering: .sequentiallyConsistent)
      let next = current &+ 1
      guard lines.allSatisfy({ $0.isIdle(odd: next & 1 != 0) }) else { break }
      phase.store(next, ordering: .sequentiallyConsistent)
    }
    return phase.load(ordering: .sequentiallyConsistent)
  }
}

/// The counters of reads in progress of the threads whose number falls on this line, alone on
/// their cache line: padding before and after them keeps the 64 bytes around them inside the
/// object (an object starts 16-byte aligned; the counters sit at bytes 64-79 of it).
@usableFromInline
final class RegistryReaderLine: Sendable {
  private let before: (Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0)
  /// Reads in progress that read an even phase.
  @usableFromInline let even = Atomic<Int>(0)
  /// Reads in progress that read an odd phase.
  @usableFromInline let odd = Atomic<Int>(0)
  private let after: (Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0)

  init() {}

  /// Counts a read in; sequentially consistent, before the read loads a snapshot (step 1).
  @inlinable
  func enter(odd isOdd: Bool) {
    if isOdd {
      odd.wrappingAdd(1, ordering: .sequentiallyConsistent)
    } else {
      even.wrappingAdd(1, ordering: .sequentiallyConsistent)
    }
  }

  /// Counts a read out, on the counter it entered on (step 3).
  @inlinable
  func exit(odd isOdd: Bool) {
    if isOdd {
      odd.wrappingSubtract(1, ordering: .sequentiallyConsistent)
    } else {
      even.wrappingSubtract(1, ordering: .sequentiallyConsistent)
    }
  }

  /// Whether no read counted in the given set is in progress now.
  func isIdle(odd isOdd: Bool) -> Bool {
    (isOdd ? odd.load(ordering: .sequentiallyConsistent)
      : even.load(ordering: .sequentiallyConsistent)) == 0
  }
}

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif
import CSpoolTime
import Synchronization

/// The multi-producer, single-consumer FIFO between a store's producers and its executor.
///
/// Producers (`Store.enqueue`, the `Send` of effects) call ``push(_:)`` from any thread. The
/// consumer is whatever code runs on the store's executor (the drain loop, `send`, `finish`):
/// the store's serial executor is what makes it single.
///
/// Design, and why:
/// - A bounded ring of slots, each with a sequence number. A producer claims a position with
///   one compare-and-swap on `tail`, writes the slot and publishes it with a release store of
///   the slot's sequence (`position + 1`). The consumer never writes to the slots' cache lines:
///   it publishes how far it has read (`consumed`) once every `publishInterval` actions, and
///   producers check for room against that. So slot lines travel one way, producer to
///   consumer, and `tail`, `consumed` and the flags each sit on a cache line of their own, so
///   that the consumer's progress does not invalidate the producers' lines on every action.
/// - The ring starts empty (no slots: every push takes the overflow below) and grows, up to
///   `maximumCapacity`, when the consumer has taken actions from the overflow; the drain loop
///   gives it back when it ends (``resizeIfOverflowed()``, ``endDrain()``), so an idle
///   store holds no ring. The `tail` word carries the ring's capacity and which of two ring
///   pointers is current with the position (``RingWord``): a producer derives everything it
///   writes from the word its CAS succeeded on, and reads the ring's pointer only after it.
///   Invariant: the consumer replaces the ring only with `tail` equal to its `head` (every
///   claimed slot already consumed) and by a CAS of that exact word, so no producer holds a
///   claim in the old ring when it is freed, and every claim made after the CAS is in the new
///   one, whose pointer the CAS publishes.
/// - When the ring is full, producers append to an unbounded overflow list under a mutex
///   instead of waiting, so that an effect sending into a busy store can never block a
///   cooperative thread. While the overflow holds anything, every producer appends there, and
///   the consumer takes the overflow only when the ring is empty, which keeps each producer's
///   actions in order.
/// - A full ring makes the producer wait a little (a draining consumer frees room within
///   nanoseconds); if the consumer does not drain, the producer appends to the overflow.
/// - The consumer role is a lock (``tryLockConsumer()``): whoever holds it may pop, and with
///   it the store's state and reducer are theirs. The store's drain loop takes it for a batch;
///   a producer that finds it free takes it to reduce on its own thread (``RootCore``), so
///   that an uncontended action costs about what a `Mutex` costs instead of a trip through
///   the ring to another core.
/// - Idle→busy: an idle queue has no drain loop at all (no task, nothing that wakes up). The
///   `drainIdle` word says whether a drain is scheduled or running; whoever turns it from
///   idle to busy with a CAS starts one (``ActionQueueDrainer/startDrain()``), so at most one
///   runs, and it ends once it finds nothing (``endDrain()``). A push from a thread that does
///   not hold the consumer lock starts a drain if none runs; a push from the holder's own
///   thread does not (the holder sees it in program order and takes it, or starts a drain for
///   what it leaves). Ending and pushing follow the store-buffering pattern with sequentially
///   consistent operations (`drainIdle` store, then a look at the queue; `tail` CAS, then a
///   `drainIdle` load), so one of the two always sees the other: either the producer starts
///   the next drain, or the ending drain finds the action, takes `drainIdle` back with a CAS
///   and goes on (if that CAS fails, the producer's drain is the one). The ending drain looks
///   with the lock held, waiting for a holder on another thread to unlock first.
///
/// Budget of ``push(_:)`` with room in the ring: one CAS, six loads, two stores; no allocation.
/// Budget of a lock and unlock without contention: one load, one CAS, one store.
@usableFromInline
final class ActionQueue<Element: Sendable>: @unchecked Sendable {
  // @unchecked Sendable, justified: a ring's slots are handed over slot by slot through the
  // acquire/release protocol above, and rings are replaced as its invariant says; `consumer`
  // and the owner's trailing storage are touched only by the single consumer (the holder of
  // the consumer lock, an acquire/release pair); everything else is an Atomic or a Mutex.

  /// The largest ring, in slots (a power of two).
  @usableFromInline let maximumCapacity: Int

  /// `tail` (a ``RingWord``: the next position producers claim, the ring's capacity and
  /// parity; written by producers, and by the consumer when it replaces the ring) at index 0,
  /// the two ring pointers at indexes 1 and 2 (`ringIndex + parity`: read by producers after
  /// their CAS on `tail`, written by the consumer before its CAS), the consumer lock (1 while
  /// held) at `Self.lockIndex`, and `consumed` (how far the consumer has read, as last
  /// published) at index `Self.consumedIndex`, 128 bytes apart (a pair of cache lines, as the
  /// adjacent-line prefetcher fetches) so that they never share a line or a pair; then, on the
  /// line paired with `consumed`'s, the consumer's state (``consumer``) and the owner's
  /// storage: one allocation, so that an idle store pays for one block rather than two.
  ///
  /// Why the consumer's state may pair with `consumed` and with nothing else: both are written
  /// by the consumer alone, and producers read `consumed` (every push) but see it change only
  /// once per ``publishInterval`` actions, so the prefetcher takes the consumer's lines away
  /// at most that often; `tail` changes on every push, and the lock on every pass.
  @usableFromInline let counters: UnsafeMutablePointer<Atomic<Int>>
  @usableFromInline static var ringIndex: Int { 1 }
  @usableFromInline static var lockIndex: Int { 16 }
  /// The work-owed flag (``markWorkOwed()``), on the lock's line: only holders write it.
  @usableFromInline static var owedIndex: Int { 17 }
  /// How many tasks wait for the consumer lock on the store's executor (``addWaiter()``), on
  /// the lock's line too: producers read it with the lock word, at no extra line's cost.
  @usableFromInline static var waitersIndex: Int { 18 }
  @usableFromInline static var consumedIndex: Int { 32 }
  /// How many counter words there are: two pairs of cache lines (`tail` and the ring pointers,
  /// the lock and the owed flag) and one line (`consumed`), whose pair the consumer's state
  /// completes.
  static var counterCount: Int { 40 }
  /// The distance between the counters' groups: a pair of cache lines.
  static var lineSize: Int { 128 }
  /// How often the consumer publishes `consumed`.
  @usableFromInline static var publishInterval: Int { 64 }
  /// The smallest ring the queue grows to from none.
  static var minimumGrownCapacity: Int { 128 }

  @inlinable var tail: UnsafeMutablePointer<Atomic<Int>> { counters }
  @inlinable var consumed: UnsafeMutablePointer<Atomic<Int>> { counters + Self.consumedIndex }
  @inlinable var lock: UnsafeMutablePointer<Atomic<Int>> { counters + Self.lockIndex }
  @inlinable var owed: UnsafeMutablePointer<Atomic<Int>> { counters + Self.owedIndex }
  @inlinable var waiters: UnsafeMutablePointer<Atomic<Int>> { counters + Self.waitersIndex }
  // The three flags side by side: a Bool between two word-aligned fields would take a word
  // of its own, in every idle store.
  /// Whether producers must append to `overflow` (it holds something).
  @usableFromInline let overflowActive = Atomic<Bool>(false)
  /// Whether no drain is scheduled or running: `true` → `false` by a CAS starts one.
  @usableFromInline let drainIdle = Atomic<Bool>(true)
  /// Whether the queue was closed; pushes after that are refused.
  @usableFromInline let closedFlag = Atomic<Bool>(false)
  @usableFromInline let overflow = Mutex<[Element]>([])

  /// Who starts a drain: the store's core, from `install` until the last drain after the
  /// queue closed lets it go (which breaks the cycle core → queue → core).
  private let drainer = Mutex<(any ActionQueueDrainer)?>(nil)

  /// The consumer's side, in the counters' allocation after them, on cache lines of its own,
  /// so that it shares none with `tail`, `consumed` or the lock. Protected by the consumer lock.
  @usableFromInline let consumer: UnsafeMutablePointer<ConsumerState>

  @usableFromInline struct ConsumerState {
    @usableFromInline var head = 0
    /// The current ring as the consumer sees it (the consumer alone replaces it): `mask` is
    /// its capacity minus one, and with no ring `sequences` is ``noRingSequence`` (whose
    /// value, 0, never equals `head + 1`), so that ``pop()`` needs no branch for it.
    @usableFromInline var mask = 0
    @usableFromInline var sequences: UnsafeMutablePointer<Atomic<Int>>
    @usableFromInline var slots: UnsafeMutablePointer<Element>?
    @usableFromInline var word = RingWord.empty
    /// The most actions taken from the overflow at once since the ring last grew; 0 when the
    /// overflow was not used.
    @usableFromInline var overflowed = 0
    /// Actions taken from the overflow, served before the ring again.
    @usableFromInline var batch: [Element] = []
    @usableFromInline var batchIndex = 0
    /// An emptied batch whose storage the next overflow reuses, so that a sustained overflow
    /// does not grow a new array from nothing (and copy it at every doubling) each time.
    @usableFromInline var spare: [Element] = []
    @usableFromInline init(sequences: UnsafeMutablePointer<Atomic<Int>>) {
      self.sequences = sequences
    }
  }

  /// - Parameters:
  ///   - capacity: the largest ring, rounded up to a power of two; the queue starts with none.
  ///   - trailingByteCount: bytes for the owner after the consumer's state, in the same
  ///     allocation (``trailingStorage``), aligned to `trailingAlignment`: what the consumer
  ///     alone writes (the store's state) sits on the consumer's lines, and an idle store pays
  ///     for one block.
  ///   - trailingAlignment: the alignment of that storage, at most ``lineSize``.
  init(capacity requested: Int, trailingByteCount: Int = 0, trailingAlignment: Int = 1) {
    precondition(
      trailingByteCount >= 0 && trailingAlignment > 0 && trailingAlignment <= Self.lineSize
        && trailingAlignment & (trailingAlignment - 1) == 0,
      "Internal inconsistency: trailing storage of \(trailingByteCount) bytes aligned to "
        + "\(trailingAlignment)"
    )
    var capacity = 2
    while capacity < min(requested, RingWord.largestCapacity) { capacity <<= 1 }
    maximumCapacity = capacity
    // The counters, then the consumer's state, then the sequence that stands for no ring, then
    // the owner's storage.
    let raw = UnsafeMutableRawPointer.allocate(
      byteCount: Self.trailingOffset(alignment: trailingAlignment) + trailingByteCount,
      alignment: Self.lineSize
    )
    counters = raw.bindMemory(to: Atomic<Int>.self, capacity: Self.counterCount)
    for index in 0..<Self.counterCount { (counters + index).initialize(to: Atomic(0)) }
    let noRing = (raw + Self.consumerOffset + MemoryLayout<ConsumerState>.stride).bindMemory(
      to: Atomic<Int>.self, capacity: 1)
    noRing.initialize(to: Atomic(0))
    consumer = (raw + Self.consumerOffset).bindMemory(to: ConsumerState.self, capacity: 1)
    consumer.initialize(to: ConsumerState(sequences: noRing))
  }

  /// Where the owner's storage starts in the counters' allocation: after the sequence that
  /// stands for no ring, aligned to `alignment`.
  static func trailingOffset(alignment: Int) -> Int {
    let end = consumerOffset + MemoryLayout<ConsumerState>.stride + MemoryLayout<Atomic<Int>>.stride
    return (end + alignment - 1) / alignment * alignment
  }

  /// Storage that the queue's owner asked for at `init` (`trailingByteCount` bytes, aligned
  /// to `alignment`, the `trailingAlignment` it gave), on the consumer's cache lines: only the
  /// holder of the consumer lock may write it. It lives as long as the queue; the owner
  /// initializes and deinitializes what it keeps there.
  @usableFromInline func trailingStorage(alignment: Int) -> UnsafeMutableRawPointer {
    UnsafeMutableRawPointer(counters) + Self.trailingOffset(alignment: alignment)
  }

  /// Where the consumer's state starts in the counters' allocation: after the counters, on
  /// the cache line after `consumed`'s.
  static var consumerOffset: Int {
    let end = MemoryLayout<Atomic<Int>>.stride * counterCount
    let alignment = max(lineSize / 2, MemoryLayout<ConsumerState>.alignment)
    return (end + alignment - 1) / alignment * alignment
  }

  deinit {
    while pop() != nil {}
    freeRing(consumer.pointee.word)
    noRingSequence.deinitialize(count: 1)
    consumer.deinitialize(count: 1)
    counters.deinitialize(count: Self.counterCount)
    UnsafeMutableRawPointer(counters).deallocate()
  }

  // MARK: Rings

  /// The sequence ``pop()`` reads when there is no ring: always 0, which never equals
  /// `head + 1`. It sits after the consumer's state, in the same allocation.
  var noRingSequence: UnsafeMutablePointer<Atomic<Int>> {
    (UnsafeMutableRawPointer(consumer) + MemoryLayout<ConsumerState>.stride)
      .assumingMemoryBound(to: Atomic<Int>.self)
  }

  /// Where a ring of `capacity` slots keeps its elements: after its sequences, in the same
  /// allocation.
  @inlinable
  static func slotsOffset(capacity: Int) -> Int {
    let alignment = MemoryLayout<Element>.alignment
    return (capacity &* MemoryLayout<Atomic<Int>>.stride &+ alignment &- 1) & ~(alignment &- 1)
  }

  static var ringAlignment: Int { max(16, MemoryLayout<Element>.alignment) }

  /// The ring that producers who claimed a position in `word` write to.
  @inlinable
  func ring(of word: RingWord) -> UnsafeMutableRawPointer {
    let bits = (counters + (Self.ringIndex &+ word.parity)).pointee.load(ordering: .relaxed)
    return UnsafeMutableRawPointer(bitPattern: bits).unsafelyUnwrapped
  }

  /// Replaces the ring with one of `capacity` slots (0: none), if it is empty (`tail` equals
  /// `head`); with the consumer lock held, by the drain loop only (``awaitPending(spins:after:)``
  /// reads the ring without the lock). Returns whether it did.
  ///
  /// The new ring's pointer goes to the slot of the other parity, which no producer reads:
  /// only a claim made in a word of that parity leads to it, and the last such word's ring was
  /// emptied and freed before this one was installed. The CAS from the exact word that says
  /// "empty at `head`" publishes the pointer to every producer whose claim follows it; a
  /// producer claiming in between makes it fail, and the old ring stays.
  func replaceRing(capacity: Int) -> Bool {
    let current = RingWord(rawValue: tail.pointee.load(ordering: .sequentiallyConsistent))
    let head = consumer.pointee.head
    guard current.capacity != capacity, current.position == head else { return false }
    let parity = 1 &- current.parity
    var base: UnsafeMutableRawPointer?
    if capacity > 0 {
      let raw = UnsafeMutableRawPointer.allocate(
        byteCount: Self.slotsOffset(capacity: capacity) + capacity * MemoryLayout<Element>.stride,
        alignment: Self.ringAlignment
      )
      // 0 never equals `position + 1`, so no slot looks written before it is.
      let sequences = raw.bindMemory(to: Atomic<Int>.self, capacity: capacity)
      for index in 0..<capacity { (sequences + index).initialize(to: Atomic(0)) }
      base = raw
    }
    let slot = counters + (Self.ringIndex &+ parity)
    slot.pointee.store(Int(bitPattern: base), ordering: .relaxed)
    let next = RingWord(position: head, capacity: capacity, parity: parity)
    consumed.pointee.store(head, ordering: .releasing)
    guard
      tail.pointee.compareExchange(
        expected: current.rawValue, desired: next.rawValue, ordering: .sequentiallyConsistent
      ).exchanged
    else {
      slot.pointee.store(0, ordering: .relaxed)
      base?.deallocate()
      return false
    }
    freeRing(current)
    consumer.pointee.word = next
    // With no ring, mask 0 keeps every read at ``noRingSequence``.
    consumer.pointee.mask = max(capacity &- 1, 0)
    if let base {
      consumer.pointee.sequences = base.assumingMemoryBound(to: Atomic<Int>.self)
      consumer.pointee.slots = (base + Self.slotsOffset(capacity: capacity))
        .assumingMemoryBound(to: Element.self)
    } else {
      consumer.pointee.sequences = noRingSequence
      consumer.pointee.slots = nil
    }
    return true
  }

  /// Frees the ring of `word`, empty; with the consumer lock held.
  private func freeRing(_ word: RingWord) {
    guard word.capacity > 0 else { return }
    let slot = counters + (Self.ringIndex &+ word.parity)
    let bits = slot.pointee.exchange(0, ordering: .relaxed)
    let raw = UnsafeMutableRawPointer(bitPattern: bits).unsafelyUnwrapped
    raw.bindMemory(to: Atomic<Int>.self, capacity: word.capacity)
      .deinitialize(count: word.capacity)
    raw.deallocate()
  }

  /// Grows the ring if actions went through the overflow since it last grew, so that a
  /// sustained burst runs on the ring; with the consumer lock held, by the drain loop only.
  /// It takes effect once the ring is empty: usually at once, since while the overflow is in
  /// use no producer claims a slot.
  func resizeIfOverflowed() {
    let overflowed = consumer.pointee.overflowed
    guard overflowed > 0 else { return }
    let capacity = consumer.pointee.word.capacity
    guard capacity < maximumCapacity else {
      consumer.pointee.overflowed = 0
      return
    }
    var grown = max(Self.minimumGrownCapacity, capacity &* 2)
    while grown < overflowed { grown <<= 1 }
    if replaceRing(capacity: min(grown, maximumCapacity)) { consumer.pointee.overflowed = 0 }
  }

  /// Gives back what the queue holds for bursts (the ring, the overflow's spare storage) when
  /// it is empty; with the consumer lock held, by the drain loop only, as it ends.
  func releaseIdleStorage() {
    if consumer.pointee.word.capacity > 0 { _ = replaceRing(capacity: 0) }
    if consumer.pointee.batchIndex == 0 && consumer.pointee.batch.isEmpty {
      consumer.pointee.spare = []
    }
  }

  /// The ring's capacity now, as the consumer sees it; with the consumer lock held (tests).
  var currentCapacity: Int { consumer.pointee.word.capacity }

  // MARK: Producers

  /// How many times a producer re-reads a full ring's next slot before it takes the overflow:
  /// about a microsecond, the time a draining consumer needs to free many slots.
  @usableFromInline static var fullSpinLimit: Int { 1_024 }

  /// Appends `element`; starts a drain if none is scheduled or running.
  ///
  /// - Returns: `false` if the queue is closed (the element is dropped).
  /// - Complexity: O(1); no allocation unless the ring is full.
  @inlinable @discardableResult
  func push(_ element: Element) -> Bool {
    if closedFlag.load(ordering: .relaxed) { return false }
    if overflowActive.load(ordering: .acquiring) {
      pushOverflow(element)
      startDrainIfIdle()
      return true
    }
    var word = RingWord(rawValue: tail.pointee.load(ordering: .relaxed))
    var fullSpins = 0
    while true {
      let capacity = word.capacity
      if word.position &- consumed.pointee.load(ordering: .acquiring) >= capacity {
        // Full. A consumer that is draining makes room within nanoseconds, so wait a little
        // (backpressure that keeps the producer on the fast path); if it does not, take the
        // overflow rather than block. No ring at all: the overflow at once.
        if capacity != 0, fullSpins < Self.fullSpinLimit, !drainIdle.load(ordering: .relaxed) {
          fullSpins &+= 1
          word = RingWord(rawValue: tail.pointee.load(ordering: .relaxed))
          continue
        }
        pushOverflow(element)
        startDrainIfIdle()
        return true
      }
      let (exchanged, current) = tail.pointee.weakCompareExchange(
        expected: word.rawValue, desired: word.rawValue &+ 1, ordering: .sequentiallyConsistent
      )
      if exchanged { break }
      word = RingWord(rawValue: current)
    }
    // The ring of the claimed word: its pointer was stored before the CAS that installed the
    // word, and it is freed only after this slot is consumed.
    let capacity = word.capacity
    let index = word.position & (capacity &- 1)
    let base = ring(of: word)
    let slots = (base + Self.slotsOffset(capacity: capacity)).assumingMemoryBound(to: Element.self)
    (slots + index).initialize(to: element)
    base.assumingMemoryBound(to: Atomic<Int>.self)[index]
      .store(word.position &+ 1, ordering: .releasing)
    startDrainIfIdle()
    return true
  }

  @inlinable
  func pushOverflow(_ element: Element) {
    overflow.withLock { list in
      list.append(element)
      // Written only under this lock: when it already says so, there is nothing to publish.
      if !overflowActive.load(ordering: .relaxed) {
        overflowActive.store(true, ordering: .sequentiallyConsistent)
      }
    }
  }

  /// Starts a drain if none is scheduled or running, unless this thread holds the consumer
  /// lock: its holder sees its own pushes in program order and takes them, or starts a drain
  /// for what it leaves (``unlockConsumer(wakingForLeftovers:)``). A push from another thread
  /// always starts one, which then waits for the holder to unlock (``endDrain()``).
  @inlinable
  func startDrainIfIdle() {
    guard drainIdle.load(ordering: .sequentiallyConsistent) else { return }
    if consumerIsHeldByCurrentThread { return }
    startDrain()
  }

  /// Starts a drain if the CAS of `drainIdle` from idle to busy succeeds; the winner is the
  /// only caller that starts one until that drain ends.
  @usableFromInline
  func startDrain() {
    guard
      drainIdle.compareExchange(expected: true, desired: false, ordering: .sequentiallyConsistent)
        .exchanged
    else { return }
    let drainer = drainer.withLock { $0 }
    drainer?.startDrain()
  }

  /// Sets who starts drains; once, before the queue is shared.
  func setDrainer(_ drainer: any ActionQueueDrainer) {
    self.drainer.withLock { $0 = drainer }
  }

  /// Lets the drainer go; by the last drain, after the queue closed.
  func releaseDrainer() {
    drainer.withLock { $0 = nil }
  }

  // MARK: The consumer lock

  /// The calling thread's identity, as the consumer lock records its holder (never 0): the
  /// thread pointer, one instruction (`cspool_thread_identity`).
  @inlinable
  static var threadIdentity: Int { Int(bitPattern: cspool_thread_identity()) }

  /// Takes the consumer role if nobody holds it; never waits.
  ///
  /// A holder may pop and owns everything the consumer role protects (in a store: the state,
  /// the reducer, the effects waiting to start) until ``unlockConsumer(wakingForLeftovers:)``.
  /// Not re-entrant: a holder that tries again fails, as any other caller does. The lock word
  /// holds the holder's thread (``threadIdentity``), so that its own pushes need not start a
  /// drain.
  ///
  /// - Returns: Whether the caller now holds the lock.
  /// - Complexity: O(1): one load, and one CAS when the lock looks free.
  @inlinable @inline(__always)
  func tryLockConsumer() -> Bool {
    // Load first, so that callers that find it held do not take its cache line away.
    guard lock.pointee.load(ordering: .relaxed) == 0 else { return false }
    return lock.pointee.compareExchange(
      expected: 0, desired: Self.threadIdentity, ordering: .acquiring
    ).exchanged
  }

  /// Takes the consumer role if nobody holds it and nobody waits for it (``addWaiter()``);
  /// never waits. For producers that would reduce on their own thread: one that flooded the
  /// store and found the lock free between two of its own passes would take it every time,
  /// and a task waiting for it on the store's executor (a read, a `send` of a busy store)
  /// would never get it. While someone waits, producers push instead, and the waiter takes
  /// the lock at the next unlock.
  ///
  /// - Returns: Whether the caller now holds the lock.
  /// - Complexity: O(1): two loads of one cache line, and one CAS when the lock looks free.
  @inlinable @inline(__always)
  func tryLockConsumerUnlessAwaited() -> Bool {
    guard lock.pointee.load(ordering: .relaxed) == 0,
      waiters.pointee.load(ordering: .relaxed) == 0
    else { return false }
    return lock.pointee.compareExchange(
      expected: 0, desired: Self.threadIdentity, ordering: .acquiring
    ).exchanged
  }

  /// Records a task that waits for the consumer lock (until ``removeWaiter()``): producers
  /// then push rather than take the lock (``tryLockConsumerUnlessAwaited()``), and the drain
  /// loop lets the executor's other jobs run between its passes.
  func addWaiter() {
    waiters.pointee.add(1, ordering: .relaxed)
  }

  /// The waiter that ``addWaiter()`` recorded has the lock, or no longer waits.
  func removeWaiter() {
    waiters.pointee.subtract(1, ordering: .relaxed)
  }

  /// Whether a task waits for the consumer lock (``addWaiter()``); a hint.
  var hasWaiters: Bool { waiters.pointee.load(ordering: .relaxed) != 0 }

  /// Gives the consumer role back.
  ///
  /// Pushes from other threads started a drain themselves; the holder's own pushes did
  /// not (``startDrainIfIdle()``), so a holder that leaves any of them queued passes
  /// `wakingForLeftovers: true` (checked before the unlock, in program order).
  ///
  /// - Complexity: O(1): one store.
  @inlinable @inline(__always)
  func unlockConsumer(wakingForLeftovers leftovers: Bool = false) {
    lock.pointee.store(0, ordering: .releasing)
    if leftovers { startDrainAfterUnlock() }
  }

  /// Starts a drain, if none runs, after the caller unlocked with its own pushes left behind.
  @usableFromInline
  func startDrainAfterUnlock() {
    if drainIdle.load(ordering: .sequentiallyConsistent) { startDrain() }
  }

  /// Records that the holder leaves work for the drain loop that is not in the queue (a store's
  /// effects collected but not started); with the lock held, before an unlock that wakes the
  /// loop. The loop treats it as pending until ``clearWorkOwed()``.
  @inlinable
  func markWorkOwed() {
    if owed.pointee.load(ordering: .relaxed) == 0 { owed.pointee.store(1, ordering: .relaxed) }
  }

  /// The owed work is done; with the lock held.
  @inlinable
  func clearWorkOwed() {
    if owed.pointee.load(ordering: .relaxed) != 0 { owed.pointee.store(0, ordering: .relaxed) }
  }

  /// Whether a holder left work for the drain loop (``markWorkOwed()``).
  @inlinable
  var isWorkOwed: Bool { owed.pointee.load(ordering: .relaxed) != 0 }

  /// Whether someone holds the consumer lock now; a hint, for callers deciding whether to wait.
  @inlinable
  var consumerIsLocked: Bool { lock.pointee.load(ordering: .relaxed) != 0 }

  /// Whether the calling thread holds the consumer lock: exact, since only the holder writes
  /// its own identity into the lock word and only the holder clears it. A holder never
  /// suspends while it holds the lock, so the thread that took it is the thread using it.
  @inlinable
  var consumerIsHeldByCurrentThread: Bool {
    lock.pointee.load(ordering: .relaxed) == Self.threadIdentity
  }

  // MARK: Consumer (the holder of the consumer lock only)

  /// The position of the next element to pop, for ``awaitPending(spins:after:)``.
  @inlinable
  var consumerHead: Int { consumer.pointee.head }

  /// Removes and returns the oldest element, or `nil` if none is ready.
  ///
  /// `nil` also when a producer has claimed the next slot but not yet written it (it is a few
  /// instructions away): the caller looks again (``awaitPending(spins:after:)``), and
  /// ``hasPending`` counts such a slot. Before it takes the overflow, it waits for claimed
  /// slots, so that each producer's actions come out in the order it pushed them.
  ///
  /// - Complexity: O(1) amortized.
  @inlinable
  func pop() -> Element? {
    let head = consumer.pointee.head
    let index = head & consumer.pointee.mask
    if consumer.pointee.batch.isEmpty,
      consumer.pointee.sequences[index].load(ordering: .acquiring) == head &+ 1
    {
      return take(at: head)
    }
    return popSlow()
  }

  /// Moves the element at `head` out and advances; publishes progress every
  /// `publishInterval` elements.
  @inlinable
  func take(at head: Int) -> Element {
    let element = (consumer.pointee.slots.unsafelyUnwrapped + (head & consumer.pointee.mask))
      .move()
    let next = head &+ 1
    consumer.pointee.head = next
    if next & (Self.publishInterval &- 1) == 0 {
      consumed.pointee.store(next, ordering: .releasing)
    }
    return element
  }

  /// Publishes the consumer's progress now (before unlocking to wait, or when it finds the
  /// ring empty), so that producers waiting for room see it.
  @inlinable
  func publishConsumed() {
    consumed.pointee.store(consumer.pointee.head, ordering: .releasing)
  }

  /// The rare cases of ``pop()``: the overflow, a slot claimed but not yet written, empty.
  @inlinable
  func popSlow() -> Element? {
    if consumer.pointee.batchIndex < consumer.pointee.batch.count {
      return takeFromBatch()
    }
    let head = consumer.pointee.head
    let sequence = consumer.pointee.sequences + (head & consumer.pointee.mask)
    if sequence.pointee.load(ordering: .acquiring) == head &+ 1 { return take(at: head) }
    publishConsumed()
    // Nothing pushed, or a slot claimed but not written yet: the slot's own sequence cannot
    // tell which, and it need not: a claimed slot is found by a later pop. Reading `tail` here
    // to tell them apart took the cache line that producers compare-and-swap on every push
    // away from them whenever the consumer caught up, which nearly halved the queue's
    // throughput (`spool bench counter`, when every action went through the queue).
    guard overflowActive.load(ordering: .sequentiallyConsistent) else { return nil }
    // The overflow holds actions pushed after every slot claimed so far: finish the ring first,
    // so that each producer's order is kept.
    var spins = 0
    while true {
      if sequence.pointee.load(ordering: .acquiring) == head &+ 1 { return take(at: head) }
      if tailPosition == head { break }
      spins += 1
      if spins > 64 { sched_yield() }
    }
    var taken = consumer.pointee.spare.take()
    overflow.withLock { list in
      overflowActive.store(false, ordering: .sequentiallyConsistent)
      swap(&list, &taken)
    }
    consumer.pointee.overflowed = max(consumer.pointee.overflowed, taken.count)
    consumer.pointee.batch = taken
    consumer.pointee.batchIndex = 0
    return takeFromBatch()
  }

  /// The largest overflow storage (in actions) the consumer keeps for reuse.
  @usableFromInline static var spareCapacityLimit: Int { 16_384 }

  @inlinable
  func takeFromBatch() -> Element? {
    let index = consumer.pointee.batchIndex
    guard index < consumer.pointee.batch.count else { return nil }
    consumer.pointee.batchIndex = index + 1
    if index + 1 == consumer.pointee.batch.count {
      let element = consumer.pointee.batch[index]
      // Keep the storage for the next overflow, unless it is large: a burst's peak should not
      // stay resident for the life of the store.
      let keep = consumer.pointee.batch.capacity <= Self.spareCapacityLimit
      consumer.pointee.batch.removeAll(keepingCapacity: keep)
      consumer.pointee.spare = consumer.pointee.batch.take()
      consumer.pointee.batchIndex = 0
      return element
    }
    return consumer.pointee.batch[index]
  }

  /// Whether a ``pop()`` now would find something (or wait for a claimed slot).
  @inlinable
  var hasPending: Bool {
    consumer.pointee.batchIndex < consumer.pointee.batch.count
      || tailPosition != consumer.pointee.head
      || overflowActive.load(ordering: .sequentiallyConsistent)
  }

  /// The next position producers claim (a sequentially consistent load of `tail`).
  @inlinable
  var tailPosition: Int {
    RingWord(rawValue: tail.pointee.load(ordering: .sequentiallyConsistent)).position
  }

  /// Tries the consumer lock up to `spins` times; for the drain loop, whose lock is held by a
  /// producer in a bounded pass on another thread (a holder never suspends with it).
  ///
  /// Waiting here, with the drain still marked busy, is what keeps a burst on one drain: a
  /// drain that ended instead would mark the queue idle, and the holder's next unlock with
  /// work left would start another (a task created and scheduled per pass, `spool bench
  /// effects`).
  ///
  /// - Returns: Whether the caller now holds the lock (`false` once the queue is closed).
  func awaitConsumerLock(spins: Int) -> Bool {
    for _ in 0..<spins {
      if closedFlag.load(ordering: .relaxed) { return false }
      if tryLockConsumer() { return true }
    }
    return false
  }

  /// Looks for a pushed element up to `spins` times, without parking and without the consumer
  /// lock: `head` is the consumer's position when its caller unlocked.
  ///
  /// It polls the sequence of the slot at `head` only (not `tail`, which producers write on
  /// every push), so the poll costs producers one shared cache line per lap of eight slots.
  /// If another holder has taken the lock since, the slot may have been consumed and the poll
  /// misses it; the caller then ends its drain, which looks again with the lock. Called by the
  /// drain loop only, the only code that replaces the ring, so the ring it polls stays alive;
  /// with no ring, the pointer it polls is ``noRingSequence`` and the overflow flag tells.
  ///
  /// - Returns: Whether something may be pending for the caller to take (`false` once the
  ///   queue is closed, or while someone else holds the lock).
  func awaitPending(spins: Int, after head: Int) -> Bool {
    let next = consumer.pointee.sequences + (head & consumer.pointee.mask)
    for _ in 0..<spins {
      if next.pointee.load(ordering: .acquiring) == head &+ 1 { return true }
      if overflowActive.load(ordering: .relaxed) || isWorkOwed { return true }
      // Closed: let the caller end its drain, which then cleans up.
      if closedFlag.load(ordering: .relaxed) { return false }
      // Someone reduces on their own thread: they take what is pushed until they unlock.
      if consumerIsLocked { return false }
    }
    return !closedFlag.load(ordering: .relaxed) && !consumerIsLocked
      && (tailPosition != head
        || overflowActive.load(ordering: .sequentiallyConsistent) || isWorkOwed)
  }

  /// How a drain that found nothing to do ends (``endDrain()``).
  enum DrainEnd {
    /// Something arrived, and this drain took the busy state back: it goes on.
    case keepDraining
    /// Nothing is pending, or another drain was started for what arrived: this one returns.
    case ended
    /// The queue is closed: this drain is the last one, and cleans up.
    case closed
  }

  /// Marks the queue idle (no drain running), then looks again, with the consumer lock, for
  /// what arrived meanwhile from a producer that saw the drain still running and started
  /// none; gives back the ring and the overflow's spare storage when nothing is pending. Call
  /// it without the consumer lock, from the drain loop only (it may replace the ring),
  /// isolated to the store's executor. It waits for a holder on another thread to unlock (a
  /// bounded pass); never call it with the lock.
  ///
  /// - Returns: whether the caller goes on draining, returns, or is the last drain of a
  ///   closed queue. Once it returned ``DrainEnd/closed`` the queue stays busy: no drain is
  ///   ever started again.
  func endDrain() -> DrainEnd {
    if closedFlag.load(ordering: .sequentiallyConsistent) { return .closed }
    drainIdle.store(true, ordering: .sequentiallyConsistent)
    if closedFlag.load(ordering: .sequentiallyConsistent) {
      // `close()` starts a drain too: whichever takes the busy state back cleans up.
      return takeBusy() ? .closed : .ended
    }
    // A holder on another thread is a few reduces from unlocking, and what it leaves it
    // does not look at again.
    var attempts = 0
    while !tryLockConsumer() {
      // A drain started since (a push that saw the queue idle) takes what arrived: done.
      if !drainIdle.load(ordering: .relaxed) { return .ended }
      attempts &+= 1
      if attempts > 64 { sched_yield() }
    }
    let pending = hasPending || isWorkOwed
    // Idle: nothing of a burst needs to stay resident while no drain runs.
    if !pending { releaseIdleStorage() }
    unlockConsumer()
    guard pending else { return .ended }
    guard takeBusy() else { return .ended }
    return closedFlag.load(ordering: .sequentiallyConsistent) ? .closed : .keepDraining
  }

  /// Turns `drainIdle` from idle to busy; `false` when a drain was started meanwhile.
  private func takeBusy() -> Bool {
    drainIdle.compareExchange(expected: true, desired: false, ordering: .sequentiallyConsistent)
      .exchanged
  }

  /// Refuses later pushes, and starts a drain if none runs: the drain that finds the queue
  /// closed is the last one (``DrainEnd/closed``).
  func close() {
    closedFlag.store(true, ordering: .sequentiallyConsistent)
    startDrain()
  }

  var isClosed: Bool { closedFlag.load(ordering: .sequentiallyConsistent) }

  /// Whether the queue was closed, without ordering: for a fast path that a later push
  /// checks again.
  @inlinable
  var isClosedHint: Bool { closedFlag.load(ordering: .relaxed) }
}

/// Whoever starts an ``ActionQueue``'s drains: a store's core.
protocol ActionQueueDrainer: AnyObject, Sendable {
  /// Schedules one drain of the queue, isolated to the store's executor, which reduces until
  /// the queue is empty and then returns through ``ActionQueue/endDrain()``. Called only by
  /// the caller that turned the queue from idle to busy, so never while a drain runs.
  func startDrain()
}

extension Array {
  @inlinable
  mutating func take() -> Self {
    defer { self = [] }
    return self
  }
}

extension Optional {
  mutating func take() -> Self {
    defer { self = nil }
    return self
  }
}

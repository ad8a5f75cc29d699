#if canImport(Glibc)
  import Glibc
#endif
import ConcurrencyExtras
@testable import SpoolCore
import Synchronization
import Testing

/// The store's action queue on its own: a ring that starts empty, grows after the overflow was
/// used, is given back when idle, and keeps every producer's order through all of it.
@Suite(.timeLimit(.minutes(10)))
struct ActionQueueTests {
  @Test func startsWithoutARingAndSendsPushesThroughTheOverflow() {
    let queue = ActionQueue<Int>(capacity: 1_024)
    #expect(queue.tryLockConsumer())
    #expect(queue.currentCapacity == 0)
    for value in 0..<300 { #expect(queue.push(value)) }
    let overflowing = queue.overflowActive.load(ordering: .relaxed)
    #expect(overflowing)
    for value in 0..<300 { #expect(queue.pop() == value) }
    #expect(queue.pop() == nil)
    #expect(!queue.hasPending)
    queue.unlockConsumer()
  }

  /// The block's layout: producers' words and the consumer's never share a pair of cache
  /// lines, except `consumed` with the consumer's state (see `ActionQueue.counters`), and the
  /// owner's storage is aligned, after everything else.
  @Test func keepsProducersAndTheConsumerOnSeparatePairsOfLines() {
    typealias Queue = ActionQueue<Int>
    let word = MemoryLayout<Atomic<Int>>.stride
    func pair(_ offset: Int) -> Int { offset / 128 }
    let tail = 0
    let lock = Queue.lockIndex * word
    let consumed = Queue.consumedIndex * word
    #expect(Set([pair(tail), pair(lock), pair(consumed)]).count == 3)
    #expect(pair(Queue.owedIndex * word) == pair(lock))
    // Producers read the waiters with the lock word: the same line, not just the same pair.
    #expect(Queue.waitersIndex * word / 64 == lock / 64)
    #expect(pair((Queue.ringIndex + 1) * word) == pair(tail))
    #expect(Queue.consumerOffset / 64 == consumed / 64 + 1)
    #expect(pair(Queue.consumerOffset) == pair(consumed))
    #expect(Queue.consumerOffset >= Queue.counterCount * word)
    for alignment in [1, 2, 4, 8, 16, 64, 128] {
      let offset = Queue.trailingOffset(alignment: alignment)
      #expect(offset % alignment == 0)
      #expect(offset >= Queue.consumerOffset + MemoryLayout<Queue.ConsumerState>.stride + word)
      let queue = Queue(capacity: 4, trailingByteCount: 24, trailingAlignment: alignment)
      #expect(Int(bitPattern: queue.trailingStorage(alignment: alignment)) % alignment == 0)
      #expect(Int(bitPattern: queue.counters) % 128 == 0)
    }
  }

  /// While a waiter is recorded, a producer's try fails even on a free lock; the waiter's own
  /// try (``ActionQueue/tryLockConsumer()``) does not look at waiters.
  @Test func producersLeaveAFreeLockToAWaiter() {
    let queue = ActionQueue<Int>(capacity: 16)
    queue.addWaiter()
    #expect(queue.hasWaiters)
    #expect(!queue.tryLockConsumerUnlessAwaited())
    #expect(queue.tryLockConsumer())
    queue.removeWaiter()
    #expect(!queue.tryLockConsumerUnlessAwaited(), "held")
    queue.unlockConsumer()
    #expect(!queue.hasWaiters)
    #expect(queue.tryLockConsumerUnlessAwaited())
    queue.unlockConsumer()
  }

  @Test func growsAfterAnOverflowAndGivesTheRingBackWhenIdle() {
    let queue = ActionQueue<Int>(capacity: 1_024)
    #expect(queue.tryLockConsumer())
    for value in 0..<300 { queue.push(value) }
    while queue.pop() != nil {}
    queue.resizeIfOverflowed()
    // Room for the 300 that overflowed: the next power of two.
    #expect(queue.currentCapacity == 512)
    for value in 0..<500 { queue.push(value) }
    let overflowing = queue.overflowActive.load(ordering: .relaxed)
    #expect(!overflowing)
    for value in 0..<500 { #expect(queue.pop() == value) }
    // Nothing overflowed since: no growth.
    queue.resizeIfOverflowed()
    #expect(queue.currentCapacity == 512)
    queue.releaseIdleStorage()
    #expect(queue.currentCapacity == 0)
    queue.push(7)
    #expect(queue.pop() == 7)
    queue.unlockConsumer()
  }

  @Test func growsNoFurtherThanItsMaximum() {
    let queue = ActionQueue<Int>(capacity: 4)
    #expect(queue.maximumCapacity == 4)
    #expect(queue.tryLockConsumer())
    for value in 0..<100 { queue.push(value) }
    while queue.pop() != nil {}
    queue.resizeIfOverflowed()
    #expect(queue.currentCapacity == 4)
    // Full ring: the fifth push takes the overflow, behind the four.
    for value in 0..<6 { queue.push(value) }
    for value in 0..<6 { #expect(queue.pop() == value) }
    queue.unlockConsumer()
  }

  @Test func keepsARingThatStillHoldsActions() {
    let queue = ActionQueue<Int>(capacity: 64)
    #expect(queue.tryLockConsumer())
    #expect(queue.replaceRing(capacity: 8))
    queue.push(1)
    queue.push(2)
    #expect(!queue.replaceRing(capacity: 0))
    #expect(queue.pop() == 1)
    #expect(!queue.replaceRing(capacity: 64))
    #expect(queue.pop() == 2)
    #expect(queue.replaceRing(capacity: 64))
    #expect(queue.currentCapacity == 64)
    queue.unlockConsumer()
  }

  @Test func ringWordKeepsPositionCapacityAndParityApart() {
    let word = RingWord(position: 12_345, capacity: 1_024, parity: 1)
    #expect(word.position == 12_345)
    #expect(word.capacity == 1_024)
    #expect(word.parity == 1)
    let next = RingWord(rawValue: word.rawValue &+ 1)
    #expect(next.position == 12_346)
    #expect(next.capacity == 1_024)
    #expect(next.parity == 1)
    #expect(RingWord.empty.capacity == 0)
    #expect(RingWord(position: 0, capacity: 1, parity: 0).capacity == 1)
    #expect(RingWord(position: 0, capacity: RingWord.largestCapacity, parity: 0).capacity
      == RingWord.largestCapacity)
  }

  /// Producer threads push while a consumer thread pops and replaces the ring at random
  /// (none, tiny, large, the maximum) and grows it after overflows, thousands of times: every
  /// value comes out exactly once, in its producer's order. Under ThreadSanitizer, 5,000
  /// values per producer instead of 200,000 (20,000 took 35 s there, beside other suites).
  ///
  /// A ring is replaced only while it is empty, which a loaded machine may rarely see; so
  /// that the count of replacements does not depend on the scheduler, each producer stops at
  /// ``ringCheckpoints`` points until that many replacements happened (the queue empties while
  /// they all wait, and the consumer replaces the ring whenever it finds it empty).
  @Test func producersRacingRingReplacementsKeepCountAndOrder() async {
    let producers = 4
    let perProducer = StressTests.underThreadSanitizer ? 5_000 : 200_000
    let total = producers * perProducer
    let seed = StressTests.seed
    print("ActionQueueTests.producersRacingRingReplacementsKeepCountAndOrder: seed \(seed)")
    let queue = ActionQueue<Int>(capacity: 1_024)
    let done = AsyncStream<ConsumerResult>.makeStream()
    let replaced = Atomic<Int>(0)
    // A bound that fails the test rather than hang it, should an action be lost.
    let deadline = SpoolTime.now() + 150_000_000_000

    startThread {
      var random = SeededGenerator(seed: seed)
      var next = [Int](repeating: 0, count: producers)
      var result = ConsumerResult()
      var sinceReplacement = 0
      while result.received < total && SpoolTime.now() < deadline {
        // The only consumer: the lock is always free.
        guard queue.tryLockConsumer() else { continue }
        var popped = 0
        while popped < 64, let value = queue.pop() {
          let producer = value >> 32
          let index = value & 0xFFFF_FFFF
          if producer >= producers || index != next[producer] { result.outOfOrder += 1 }
          if producer < producers { next[producer] = index + 1 }
          result.received += 1
          popped += 1
        }
        sinceReplacement += popped
        if popped == 0 || sinceReplacement >= Int(random.next() % 512) {
          sinceReplacement = 0
          let choices = [0, 2, 8, 128, 1_024]
          let capacity = choices[Int(random.next() % UInt64(choices.count))]
          if queue.replaceRing(capacity: capacity) {
            result.replacements += 1
            replaced.add(1, ordering: .releasing)
          }
        }
        queue.resizeIfOverflowed()
        queue.unlockConsumer()
        if popped == 0 { sched_yield() }
      }
      done.continuation.yield(result)
      done.continuation.finish()
    }
    for producer in 0..<producers {
      startThread {
        var random = SeededGenerator(seed: seed &+ UInt64(producer) &+ 1)
        var index = 0
        var checkpoint = 1
        while index < perProducer {
          var end = perProducer
          if checkpoint <= Self.ringCheckpoints {
            end = perProducer * checkpoint / (Self.ringCheckpoints + 1)
          }
          if index == end {
            // Sleeps rather than spins: four spinning threads would take the cores from the
            // consumer, and from other suites' work, for as long as they wait.
            while replaced.load(ordering: .acquiring) < checkpoint && SpoolTime.now() < deadline {
              usleep(100)
            }
            checkpoint += 1
            continue
          }
          let burst = min(Int(random.next() % 256) + 1, end - index)
          for _ in 0..<burst {
            queue.push(producer << 32 | index)
            index += 1
          }
          if random.next() & 3 == 0 { sched_yield() }
        }
      }
    }
    var results = done.stream.makeAsyncIterator()
    let result = await results.next()
    #expect(result?.received == total, "seed \(seed)")
    #expect(result?.outOfOrder == 0, "seed \(seed)")
    // The ring was replaced while producers claimed slots, not just once.
    #expect((result?.replacements ?? 0) >= Self.ringCheckpoints, "seed \(seed)")
    #expect(queue.tryLockConsumer())
    #expect(queue.pop() == nil)
    queue.unlockConsumer()
  }

  /// The points at which each producer of the racing test waits for a replacement.
  static let ringCheckpoints = 12

  struct ConsumerResult: Sendable {
    var received = 0
    var outOfOrder = 0
    var replacements = 0
  }
}

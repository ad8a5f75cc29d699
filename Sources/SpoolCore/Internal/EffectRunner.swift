import Synchronization

/// Runs a pass's plain `.run` effects one after another in one task, until one of them
/// suspends; the store then starts the rest in another runner.
///
/// Why: a task per effect was the floor of an effect's cost. Creating and starting a task,
/// with the task-local bindings it copies (the drain loop has two: the dependencies and the
/// registry), costs nearly as much as the whole rest of Spool's round trip (two enqueues, two
/// reduces, the effect's box and `Send`): `spool bench effects`. Most effects a store runs at
/// volume send and end without suspending; they need no task of their own, only a task other
/// than the one that reduced their actions. So the store collects the runs it would have
/// started (``CollectedEffects/route(_:forTask:)`` says which), and once
/// ``CollectedEffects/batchLimit`` of them wait, before it starts or cancels anything else, and
/// at the end of the pass at the latest, starts them here: one task, started immediately, runs
/// them in order. When one suspends, the task is that effect's from then on (it is registered
/// as a running effect, and cancelling it cancels that effect), and the store seals this
/// runner and starts the remaining runs in a new one, at once.
///
/// Claiming: the runner takes the next run with an atomic add on ``cursor``, the store seals it
/// with an atomic or of ``sealed``; each index is claimed once, by whichever comes first. A run
/// that suspended and resumed on another thread before the store sealed the runner goes on to
/// claim the next runs there; the store's new runner starts after the last one claimed.
@usableFromInline
final class EffectRunner<Action: Sendable>: Sendable {
  /// The runs of the drain pass, shared by its runners.
  @usableFromInline let batch: EffectBatch<Action>
  @usableFromInline let send: Send<Action>
  @usableFromInline let registry: EffectRegistry
  /// The store's instrumentation, which times each run (from when the runner begins it).
  @usableFromInline let instrumentation: (any StoreInstrumentation<Action>)?
  /// The registry's id of the immediate start of this runner's task.
  @usableFromInline let startID: UInt64
  /// The index of the next run to claim; ``sealed`` set once the store took the rest back.
  @usableFromInline let cursor: Atomic<Int>

  /// The bit of ``cursor`` that seals the runner. Adds after sealing (at most one per runner:
  /// it stops when it sees the bit) never reach it.
  @usableFromInline static var sealed: Int { 1 << 62 }

  @inlinable
  init(
    batch: EffectBatch<Action>, from first: Int, send: Send<Action>,
    registry: EffectRegistry, instrumentation: (any StoreInstrumentation<Action>)?,
    startID: UInt64
  ) {
    self.batch = batch
    self.send = send
    self.registry = registry
    self.instrumentation = instrumentation
    self.startID = startID
    self.cursor = Atomic(first)
  }

  /// The runner task's body: runs the runs it claims, in order, until none is left or the
  /// store sealed the runner.
  @inlinable
  nonisolated(nonsending) func run() async {
    defer { registry.immediateEffectEnded(startID) }
    await registry.withCurrent {
      while true {
        let index = cursor.wrappingAdd(1, ordering: .relaxed).oldValue
        if index & Self.sealed != 0 || index >= batch.count { return }
        let box = batch.take(index)
        guard let instrumentation else {
          _ = await perform(box)
          continue
        }
        let origin = batch.takeOrigin(index)
        let startedAt = SpoolTime.now()
        instrumentation.effectStarted(by: origin, at: startedAt)
        let outcome = await perform(box).resolved()
        instrumentation.effectEnded(
          by: origin, startedAt: startedAt, endedAt: SpoolTime.now(), outcome: outcome)
      }
    }
  }

  /// Runs one run of the batch in the current task.
  @inlinable
  nonisolated(nonsending) func perform(_ box: Effect<Action>.Box) async -> EffectOutcome {
    if box.kind == .effectRun {
      return await unsafeDowncast(box, to: Effect<Action>.EffectRunBox.self).perform(send)
    }
    return await unsafeDowncast(box, to: Effect<Action>.RunBox.self).work(send)
  }

  /// Seals the runner; returns the index of the first run it will not claim (`batch.count`
  /// when it has claimed them all). By the holder of the store's consumer lock, once the
  /// runner's immediate start has returned.
  @inlinable
  func seal() -> Int {
    let next = cursor.bitwiseOr(Self.sealed, ordering: .relaxed).oldValue & (Self.sealed - 1)
    return min(next, batch.count)
  }
}

/// The runs a drain pass collected, for ``EffectRunner``s to claim: each slot is taken (and
/// its box released) by the one runner that claims its index, so that a runner whose run
/// suspends for a long time keeps only that run alive, not the whole batch.
@usableFromInline
final class EffectBatch<Action: Sendable>: @unchecked Sendable {
  // @unchecked Sendable, justified: `append` writes slots (runs and origins) and `count` only
  // by holders of the store's consumer lock (one at a time; each sees its predecessor's writes
  // through the lock's acquire and release), before the batch is handed to a runner: the holder
  // that starts a batch's runners has made its last append and drops the batch. After that
  // `count` is read-only, and each slot is read and cleared by `take` (and `takeOrigin`) in the
  // one runner that claimed its index (a runner's atomic cursor hands out each index once, and a
  // sealed runner's successor starts after the last index it claimed). Task creation orders the
  // appends before the takes; `deinit` runs after every runner released the batch.
  @usableFromInline let slots: UnsafeMutablePointer<Effect<Action>.Box?>
  /// The actions whose reduces returned the runs, for a store with instrumentation (which
  /// reports each effect by its action); `nil` otherwise. Taken like the runs.
  @usableFromInline let origins: UnsafeMutablePointer<Action?>?
  /// How many runs were appended. Not checked for exclusive access at run time (every run
  /// reads it): the proof above says who writes it and when.
  @exclusivity(unchecked) @usableFromInline private(set) var count = 0

  /// A batch with room for `capacity` runs, and for their actions if `keepsOrigins`.
  @inlinable
  init(capacity: Int, keepsOrigins: Bool) {
    slots = .allocate(capacity: capacity)
    origins = keepsOrigins ? .allocate(capacity: capacity) : nil
  }

  /// Adds a run, returned by the reduce of `origin`; by the holder of the store's consumer
  /// lock, before the batch is shared. Returns the new count.
  @inlinable
  func append(_ box: consuming Effect<Action>.Box, origin: @autoclosure () -> Action) -> Int {
    (slots + count).initialize(to: box)
    if let origins { (origins + count).initialize(to: origin()) }
    count += 1
    return count
  }

  /// The action of the run at `index`, taken out of the batch; by the runner that claimed
  /// `index`, in a batch that keeps origins.
  @inlinable
  func takeOrigin(_ index: Int) -> Action {
    let origins = origins.unsafelyUnwrapped
    let origin = (origins + index).move()
    (origins + index).initialize(to: nil)
    return origin.unsafelyUnwrapped
  }

  /// The run at `index`, taken out of the batch; by the runner that claimed `index`.
  @inlinable
  func take(_ index: Int) -> Effect<Action>.Box {
    let box = (slots + index).move()
    (slots + index).initialize(to: nil)
    return box.unsafelyUnwrapped
  }

  deinit {
    slots.deinitialize(count: count)
    slots.deallocate()
    if let origins {
      origins.deinitialize(count: count)
      origins.deallocate()
    }
  }
}

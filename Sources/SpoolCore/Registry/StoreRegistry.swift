import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Stores by ID, one per entity (a cart, a session, an account), created on first use, evicted
/// when idle or beyond a bound, and shut down together.
///
/// A server keeps one ``Store`` per entity: the registry creates it the first time an ID is
/// asked for (with the `makeStore` closure, run once per ID however many requests ask at the
/// same time), keeps it while it is used, evicts it when it has been idle for
/// ``StoreRegistryConfiguration/idleTimeout`` or to stay within
/// ``StoreRegistryConfiguration/maximumLiveStores``, and shuts every store down with
/// ``shutdown(deadline:)``.
///
/// Use a store through the registry, which holds it for the length of the call:
/// ``send(_:to:)``, ``send(_:to:reading:)`` and ``withStore(_:_:)-nans`` (or, for a body that
/// needs the store only for a moment, its synchronous form ``withStore(_:_:)-74yp2``). A held
/// store is never
/// evicted, so an action sent through the registry is reduced by a live store, never lost to an
/// eviction racing it: a request that comes while the store of its ID is being evicted waits
/// for the eviction to end (`onEvict` included) and then gets a new store.
///
/// Eviction reduces what the store has queued, shuts it down (cancelling its effects), and
/// then calls `onEvict` with the store's final state (to write a snapshot, say). Nothing wakes
/// per store: one sweeper task per registry sleeps until the earliest time an idle store could
/// expire, and does not exist while the registry holds no store (or evicts none for
/// idleness).
///
/// Shut the registry down before releasing it: the sweeper keeps it alive while it holds
/// stores, and a registry released without ``shutdown(deadline:)`` releases its stores (which
/// shuts them down) without calling `onEvict`.
///
/// ```swift
/// let carts = StoreRegistry<Cart.ID, Cart.State, Cart.Action>(
///   configuration: StoreRegistryConfiguration(idleTimeout: .seconds(300)),
///   onEvict: { id, state in await snapshots.save(state, for: id) }
/// ) { id in
///   Store(initialState: try await snapshots.load(id) ?? Cart.State(id: id)) {
///     Cart()
///   }
/// }
///
/// let total = try await carts.send(.add(item), to: cartID) { $0.total }
/// ```
public final class StoreRegistry<ID: Hashable & Sendable, State: Sendable, Action: Sendable>:
  Sendable
{
  @usableFromInline typealias Slot = RegistrySlot<State, Action>
  @usableFromInline typealias Shard = RegistryShard<ID, State, Action>
  @usableFromInline typealias Key = RegistryKey<ID>

  /// The registry's bounds and eviction policy.
  public let configuration: StoreRegistryConfiguration

  let clock: RegistryClock
  let makeStore: @Sendable (ID) async throws -> Store<State, Action>
  let onEvict: (@Sendable (ID, State) async -> Void)?
  let onLiveStoresChange: (@Sendable (Int) -> Void)?
  @usableFromInline let shards: [Shard]
  /// The same shards, for the lookup path, which so takes no reference count on its shard:
  /// `shards` keeps every one alive as long as the registry, which the caller holds.
  @usableFromInline let unretainedShards: [Unmanaged<Shard>]
  /// `shards.count - 1`: the shard of an ID is its hash's low bits.
  @usableFromInline let shardMask: Int
  /// The reads in progress of the shards' published snapshots, and the snapshots taken down.
  @usableFromInline let readers = RegistryReaders()
  /// The number of live stores (``count``).
  let liveCount = Atomic<Int>(0)
  /// The use epoch: what a use of a store writes as its `lastUse` (`RegistrySlot`). It
  /// advances by one at each sweeper pass (`sweep()`), and by two at each creation, whose
  /// store takes the value between: so every use before a creation counts as older than the
  /// new store, and every use after it as newer. Read by every call, written rarely.
  @usableFromInline let useEpoch = Atomic<UInt64>(0)
  /// Set once by ``shutdown(deadline:)``, before it collects the stores: read by every call
  /// that would hold or create a store, with its shard's lock held or after taking its hold
  /// (`holdPublished(_:key:)`), so that each call either holds its store before shutdown
  /// collects it, or is refused.
  @usableFromInline let shuttingDown = Atomic<Bool>(false)
  let lifecycle = Mutex(Lifecycle())
  /// Serializes the calls of `onLiveStoresChange`, so that the last call has the last count;
  /// holds the count last published. (A `Mutex<Void>` here drew a ThreadSanitizer report on
  /// the access to its zero-sized value, at the lock object's own address.)
  let gaugeLock = Mutex(0)
  /// Called after each pass of the sweeper (tests wait for passes with it).
  let onSweep: (@Sendable () -> Void)?

  struct Lifecycle {
    /// The sweeper task, while it runs: it ends when the registry holds no store.
    var sweeper: Task<Void, Never>?
    /// The shutdown, once ``shutdown(deadline:)`` was called.
    var shutdown: Task<Void, Never>?
  }

  /// Creates a registry that makes each ID's store with `makeStore`.
  ///
  /// - Parameters:
  ///   - configuration: Idle eviction, the bound on live stores, and what eviction does with
  ///     running effects. The default keeps every store until ``shutdown(deadline:)``.
  ///   - clock: The clock of idle eviction; a test passes a test clock to drive it.
  ///   - onEvict: Called with a store's ID and final state after the store was evicted or shut
  ///     down (by eviction, or by ``shutdown(deadline:)``), before the ID can get a new store:
  ///     a request for that ID waits for it, so it must not ask the registry for that ID.
  ///   - onLiveStoresChange: Called with the number of live stores each time it changes (a
  ///     gauge); calls are serialized, and the last one has the current count. Keep it cheap,
  ///     and do not create or evict stores from it.
  ///   - makeStore: Creates the store of an ID, once per ID until it is evicted. When it
  ///     throws, every caller waiting for that creation gets the error, nothing is kept, and
  ///     the next request for the ID tries again. To share one instrumentation between the
  ///     stores, labeled with their IDs, see ``KeyedStoreInstrumentation``.
  ///
  /// ```swift
  /// let sessions = StoreRegistry<UUID, Session.State, Session.Action>(
  ///   configuration: StoreRegistryConfiguration(idleTimeout: .seconds(900))
  /// ) { id in
  ///   Store(initialState: Session.State(id: id)) { Session() }
  /// }
  /// ```
  public convenience init(
    configuration: StoreRegistryConfiguration = StoreRegistryConfiguration(),
    clock: any Clock<Duration> = ContinuousClock(),
    onEvict: (@Sendable (_ id: ID, _ state: State) async -> Void)? = nil,
    onLiveStoresChange: (@Sendable (_ count: Int) -> Void)? = nil,
    makeStore: @escaping @Sendable (_ id: ID) async throws -> Store<State, Action>
  ) {
    self.init(
      configuration: configuration, clock: clock, shardCount: Self.defaultShardCount,
      onEvict: onEvict, onLiveStoresChange: onLiveStoresChange, onSweep: nil,
      makeStore: makeStore)
  }

  /// Creates a registry with `shardCount` shards (a power of two); tests use one shard, so
  /// that the order of eviction for the bound does not depend on how IDs hash.
  init(
    configuration: StoreRegistryConfiguration,
    clock: any Clock<Duration>,
    shardCount: Int,
    onEvict: (@Sendable (ID, State) async -> Void)?,
    onLiveStoresChange: (@Sendable (Int) -> Void)?,
    onSweep: (@Sendable () -> Void)?,
    makeStore: @escaping @Sendable (ID) async throws -> Store<State, Action>
  ) {
    precondition(
      shardCount > 0 && shardCount & (shardCount - 1) == 0,
      "Internal inconsistency: a registry's shard count must be a power of two")
    self.configuration = configuration
    self.clock = RegistryClock(clock)
    self.makeStore = makeStore
    self.onEvict = onEvict
    self.onLiveStoresChange = onLiveStoresChange
    self.onSweep = onSweep
    self.shards = (0..<shardCount).map { _ in Shard() }
    self.shardMask = shardCount - 1
    self.unretainedShards = shards.map { Unmanaged.passUnretained($0) }
  }

  /// Two shards per core (at least 8): calls for different IDs on different threads rarely
  /// meet on one lock.
  static var defaultShardCount: Int {
    var count = 8
    while count < 2 * ProcessInfoCores.active { count *= 2 }
    return count
  }

  /// The number of live stores: created, and neither evicted nor shut down.
  ///
  /// A store being created or being evicted is not counted.
  ///
  /// ```swift
  /// liveCartsGauge.record(carts.count)
  /// ```
  public var count: Int { liveCount.load(ordering: .relaxed) }

  /// Whether ``shutdown(deadline:)`` was called.
  public var isShutDown: Bool { shuttingDown.load(ordering: .relaxed) }

  @inlinable
  func shardIndex(for key: Key) -> Int {
    key.hash & shardMask
  }

  // MARK: Holding a store

  /// Calls `body` with the store of `id`, created if need be; the store is not evicted while
  /// `body` runs.
  ///
  /// `body` runs in the caller's isolation. Keep what it does with the store inside it: a
  /// store kept past the call may be evicted, and an action sent to an evicted store is a
  /// reported misuse, dropped. A body that does not await picks the synchronous form,
  /// ``withStore(_:_:)-74yp2``, which saves the hop into an async closure.
  ///
  /// - Parameters:
  ///   - id: The ID of the store.
  ///   - body: Uses the store.
  /// - Returns: What `body` returned.
  /// - Throws: ``StoreRegistryError`` with ``StoreRegistryError/Code/shutDown`` once the
  ///   registry shuts down; the error of `makeStore` when creating the store failed; what
  ///   `body` throws.
  ///
  /// ```swift
  /// let items = try await carts.withStore(cartID) { cart in
  ///   await cart.send(.refresh).finish()
  ///   return await cart.state.items
  /// }
  /// ```
  @inlinable
  public nonisolated(nonsending) func withStore<Result>(
    _ id: ID, _ body: nonisolated(nonsending) (Store<State, Action>) async throws -> Result
  ) async throws -> Result {
    let slot = try await held(id)
    // The hold (`RegistrySlot`) keeps the slot live until it is given back, at the end.
    defer { slot._withUnsafeGuaranteedRef { $0.release() } }
    return try await body(slot._withUnsafeGuaranteedRef { $0.store })
  }

  /// Calls the synchronous `body` with the store of `id`, created if need be; the store is not
  /// evicted while `body` runs.
  ///
  /// For what needs the store only for a moment, such as ``Store/enqueue(_:)`` (an action
  /// queued before an eviction is reduced by the store it was queued to: eviction settles the
  /// queue first) or reading ``Store/runningEffectCount``. A call whose store is live does
  /// not suspend in `body`.
  ///
  /// - Parameters:
  ///   - id: The ID of the store.
  ///   - body: Uses the store.
  /// - Returns: What `body` returned.
  /// - Throws: ``StoreRegistryError`` with ``StoreRegistryError/Code/shutDown`` once the
  ///   registry shuts down; the error of `makeStore` when creating the store failed; what
  ///   `body` throws.
  ///
  /// ```swift
  /// try await carts.withStore(cartID) { $0.enqueue(.touch) }
  /// ```
  @inlinable
  public nonisolated(nonsending) func withStore<Result>(
    _ id: ID, _ body: (Store<State, Action>) throws -> Result
  ) async throws -> Result {
    let key = Key(id)
    if let result = try withLiveStore(key, body) { return result }
    let slot = try await hold(key)
    // The hold (`RegistrySlot`) keeps the slot live until it is given back, at the end.
    defer { slot._withUnsafeGuaranteedRef { $0.release() } }
    return try body(slot._withUnsafeGuaranteedRef { $0.store })
  }

  /// Runs the synchronous `body` with the store of `key`, if it is live and its shard has a
  /// published snapshot, without a hold: the read that found the store is counted
  /// (``RegistryReaders``) until `body` returns, and whatever takes a store (eviction, the
  /// shutdown) first waits for the reads in progress to end
  /// (``RegistryReaders/waitForReadsInProgress()``). `nil` sends the call to ``hold(_:)``.
  ///
  /// Budget: as ``holdLive(_:)`` without the hold's two read-modify-writes on the slot, so
  /// that the call costs two atomic read-modify-writes (the read's count in and out, on the
  /// thread's own line), as a lock's acquire and release do.
  @inlinable
  func withLiveStore<Result>(
    _ key: Key, _ body: (Store<State, Action>) throws -> Result
  ) throws -> Result? {
    try readers.read {
      try unretainedShards[shardIndex(for: key)]._withUnsafeGuaranteedRef { shard in
        guard let snapshot = shard.published.load(ordering: .sequentiallyConsistent) else {
          return nil
        }
        return try snapshot._withUnsafeGuaranteedRef { snapshot -> Result? in
          guard let found = snapshot.slots[key] else { return nil }
          return try found.slot._withUnsafeGuaranteedRef { slot -> Result? in
            // A take not seen here waits for this read (`RegistrySlot.isTaken`); the shutdown
            // flag, set before the shutdown waits for reads, likewise.
            guard !slot.isTaken else { return nil }
            guard !shuttingDown.load(ordering: .sequentiallyConsistent) else {
              throw StoreRegistryError(code: .shutDown, id: key.id)
            }
            slot.noteUse(in: useEpoch.load(ordering: .sequentiallyConsistent))
            return try body(slot.store)
          }
        }
      }
    }
  }

  /// The held slot of `id`'s store: found live without suspending, or waited for (created or
  /// past an eviction). The caller owns the hold, and gives it back with `release()`; the
  /// slot stays live (referenced by its shard) while held.
  @inlinable
  nonisolated(nonsending) func held(_ id: ID) async throws -> Unmanaged<Slot> {
    let key = Key(id)
    if let live = try holdLive(key) { return live }
    return try await hold(key)
  }

  /// Reduces `action` in the store of `id`, created if need be.
  ///
  /// As ``Store/send(_:)-(Action)``: when it returns, the action has been reduced, by a live
  /// store (an eviction racing the call waits for it, or happens before it and the call gets
  /// a new store).
  ///
  /// - Parameters:
  ///   - action: The action to reduce.
  ///   - id: The ID of the store.
  /// - Returns: A handle to wait for or cancel the action's effects.
  /// - Throws: ``StoreRegistryError`` with ``StoreRegistryError/Code/shutDown`` once the
  ///   registry shuts down; the error of `makeStore` when creating the store failed.
  ///
  /// ```swift
  /// try await carts.send(.add(item), to: cartID)
  /// ```
  @discardableResult
  @inlinable
  public nonisolated(nonsending) func send(_ action: Action, to id: ID) async throws
    -> StoreTask
  {
    let slot = try await held(id)
    // The hold (`RegistrySlot`) keeps the slot live until it is given back, at the end.
    defer { slot._withUnsafeGuaranteedRef { $0.release() } }
    // The slot's copy of the store's entry: an idle store's send loads no `Store` object.
    if let task = slot._withUnsafeGuaranteedRef({ $0.trySendEntry(action, nil) }) { return task }
    return await slot._withUnsafeGuaranteedRef { $0.store }.sendEntry(action)
  }

  /// Reduces `action` in the store of `id` and returns what `read` takes from the state right
  /// after it, with no other producer's action in between (``Store/send(_:reading:)``).
  ///
  /// - Parameters:
  ///   - action: The action to reduce.
  ///   - id: The ID of the store.
  ///   - read: Takes the value to return from the state after the action.
  /// - Returns: What `read` returned.
  /// - Throws: ``StoreRegistryError`` with ``StoreRegistryError/Code/shutDown`` once the
  ///   registry shuts down; the error of `makeStore` when creating the store failed.
  ///
  /// ```swift
  /// let total = try await carts.send(.add(item), to: cartID) { $0.total }
  /// ```
  @inlinable
  public nonisolated(nonsending) func send<Value: Sendable>(
    _ action: Action, to id: ID, reading read: @Sendable (State) -> Value
  ) async throws -> Value {
    let slot = try await held(id)
    // The hold (`RegistrySlot`) keeps the slot live until it is given back, at the end.
    defer { slot._withUnsafeGuaranteedRef { $0.release() } }
    // The slot's copy of the store's entry: an idle store's send loads no `Store` object.
    let entry = slot._withUnsafeGuaranteedRef { $0.trySendEntry }
    if let value = Store.trySend(action, reading: read, through: entry) { return value }
    return await slot._withUnsafeGuaranteedRef { $0.store }.sendReadingOnExecutor(action, read)
  }

  /// The slot of `key`, held, if its store is live and its shard has a published snapshot:
  /// the common case, without a suspension (an `async` call would hop to the global executor
  /// and back, several times the cost of the lookup: `spool bench registry`) and without the
  /// shard's lock. `nil` sends the call to ``hold(_:)``, which takes the lock.
  ///
  /// Budget: one hash of the ID (in `key`), a counted read (an atomic add and subtract on the
  /// thread's own line), one dictionary lookup with no second hash, the hold (an atomic add on
  /// the slot) and a load of the use epoch (`noteUse(in:)`, which writes the slot's line only
  /// in a new epoch); no allocation, and no write to a line that a lookup of another ID on
  /// another thread writes.
  @inlinable
  func holdLive(_ key: Key) throws -> Unmanaged<Slot>? {
    try readers.read {
      try unretainedShards[shardIndex(for: key)]._withUnsafeGuaranteedRef { shard in
        guard let snapshot = shard.published.load(ordering: .sequentiallyConsistent) else {
          return nil
        }
        return try snapshot._withUnsafeGuaranteedRef { snapshot -> Unmanaged<Slot>? in
          guard let found = snapshot.slots[key] else { return nil }
          return try found.slot._withUnsafeGuaranteedRef { try holdPublished($0, key: key) }
        }
      }
    }
  }

  /// Takes a hold on `slot`, found in a published snapshot (which may be out of date), for
  /// ``holdLive(_:)``; `nil` when an eviction took the slot.
  ///
  /// The shutdown flag is read after the hold is taken, both sequentially consistent: the
  /// shutdown sets the flag before it waits for the holds of the stores it collects, so a
  /// call either sees the flag (and gives its hold back) or holds its store before the
  /// shutdown looks for holds. A slot whose hold succeeded was live then and stays in its
  /// shard's live stores (or the shutdown's list) until the hold is given back
  /// (`RegistrySlot`).
  @inlinable
  func holdPublished(_ slot: Slot, key: Key) throws -> Unmanaged<Slot>? {
    guard slot.tryHold() else { return nil }
    guard !shuttingDown.load(ordering: .sequentiallyConsistent) else {
      slot.release()
      throw StoreRegistryError(code: .shutDown, id: key.id)
    }
    slot.noteUse(in: useEpoch.load(ordering: .sequentiallyConsistent))
    return Unmanaged.passUnretained(slot)
  }

  /// The slot of `key`, held: live, or created, or after an eviction in progress ended,
  /// created anew.
  @usableFromInline
  nonisolated(nonsending) func hold(_ key: Key) async throws -> Unmanaged<Slot> {
    let shard = shards[shardIndex(for: key)]
    while true {
      let step = try shard.contents.withLock { contents -> HoldStep in
        guard !shuttingDown.load(ordering: .sequentiallyConsistent) else {
          throw StoreRegistryError(code: .shutDown, id: key.id)
        }
        if let slot = contents.live[key] {
          // Live, so not taken (`Contents.live`): the hold succeeds.
          guard slot.tryHold() else {
            preconditionFailure("Internal inconsistency: a live store was taken for eviction")
          }
          slot.noteUse(in: useEpoch.load(ordering: .sequentiallyConsistent))
          shard.noteLockedLookup(&contents)
          return .held(Unmanaged.passUnretained(slot))
        }
        switch contents.changing[key] {
        case .creating(let task, let waiters)?:
          contents.changing[key] = .creating(task: task, waiters: waiters + 1)
          return .creating(task)
        case .evicting(let eviction)?:
          return .evicting(eviction)
        case nil:
          let task = Task { try await self.create(key, in: shard) }
          contents.changing[key] = .creating(task: task, waiters: 1)
          return .creating(task)
        }
      }
      switch step {
      case .held(let slot):
        return slot
      case .creating(let task):
        // Counted among the creation's waiters: one of the holds it took is this call's.
        return try await task.value
      case .evicting(let eviction):
        _ = await eviction.value
      }
    }
  }

  enum HoldStep {
    case held(Unmanaged<Slot>)
    case creating(Task<Unmanaged<Slot>, any Error>)
    case evicting(Task<Bool, Never>)
  }

  /// Runs `makeStore` for `key` and makes its store live, or, when it throws, forgets the ID.
  ///
  /// The creation takes a hold for each caller that waited for it (counted under the shard's
  /// lock, where the entry is replaced), before the slot becomes live: each caller gives one
  /// back, so none can lose the store to an eviction before it has it. The task's result
  /// itself holds nothing, so that the slot is free to evict as soon as the last caller is
  /// done with it.
  func create(_ key: Key, in shard: Shard) async throws -> Unmanaged<Slot> {
    let store: Store<State, Action>
    do {
      store = try await makeStore(key.id)
    } catch {
      shard.contents.withLock { contents in
        guard case .creating? = contents.changing.removeValue(forKey: key) else {
          preconditionFailure("Internal inconsistency: a failed creation lost its entry")
        }
      }
      throw error
    }
    let now = clock.now().registryNanoseconds
    let slot = Slot(
      store: store, idleSince: now,
      createdIn: useEpoch.add(2, ordering: .relaxed).newValue - 1)
    shard.contents.withLock { contents in
      guard case .creating(_, let waiters)? = contents.changing.removeValue(forKey: key) else {
        preconditionFailure("Internal inconsistency: a creation lost its entry")
      }
      slot.holds.wrappingAdd(waiters, ordering: .sequentiallyConsistent)
      let takenDown = shard.unpublish(&contents)
      contents.live[key] = slot
      readers.retire(takenDown)
    }
    readers.reclaim()
    let live = liveCount.add(1, ordering: .relaxed).newValue
    publishCount()
    if let maximum = configuration.maximumLiveStores, live > maximum {
      evictForBound(maximum: maximum, startingAt: shardIndex(for: key))
    }
    startSweeperIfNeeded()
    return Unmanaged.passUnretained(slot)
  }

  /// Calls `onLiveStoresChange` with the current count; serialized, so that the last call
  /// has the last count.
  func publishCount() {
    guard let onLiveStoresChange else { return }
    gaugeLock.withLock { published in
      published = liveCount.load(ordering: .relaxed)
      onLiveStoresChange(published)
    }
  }
}

/// The number of cores this process may run on.
enum ProcessInfoCores {
  static let active: Int = {
    #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
      return max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    #else
      return 1
    #endif
  }()
}

extension Duration {
  /// This duration in whole nanoseconds, as the registry stores times.
  var registryNanoseconds: Int64 {
    let (seconds, attoseconds) = components
    return seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000
  }
}

import Synchronization

/// A live store of a ``StoreRegistry``, with its holds and what eviction needs to know of its
/// use.
///
/// `holds` is the number of registry calls that hold the store, plus ``evicting`` once an
/// eviction (or the shutdown) took it. A call takes a hold with one atomic add on this word
/// alone, so that calls for different IDs write no common cache line, and gives it back with
/// one subtract; an add that finds ``evicting`` set is undone, and the call takes the shard's
/// lock instead. Eviction takes a store only by a compare-exchange from no hold to
/// ``evicting``, so a held store is never evicted, and no hold is taken once it is. The shard's
/// dictionary of live stores keeps the slot while it is live (and so while it is held); a
/// published snapshot keeps it while a read may find it there (``RegistryReaders``).
///
/// The sweeper learns of uses from `lastUse` (compared with `sweptUse`), and the bound on live
/// stores evicts the smallest `lastUse` first. Uses are counted in the registry's use epoch
/// (`StoreRegistry.useEpoch`) rather than read from a clock, which a lookup cannot afford.
@usableFromInline
final class RegistrySlot<State: Sendable, Action: Sendable>: Sendable {
  @usableFromInline let store: Store<State, Action>
  /// `store.trySendEntry`, copied here so that a send to an idle store reads it from the slot,
  /// whose line the hold has just written, rather than from the `Store` object: one dependent
  /// load fewer when the store is cold. Called only while the slot is held, as `store` is.
  @usableFromInline let trySendEntry: @Sendable (Action, ((State) -> Void)?) -> StoreTask?
  /// The holds (the low bits) and ``evicting``.
  @usableFromInline let holds = Atomic<Int>(0)
  /// The registry's use epoch when a call last used the store (or its creation's own value),
  /// written after the hold was taken and before it is given back, in the slot's own line,
  /// which the hold has just written; never decreases. Orders the stores from least to most
  /// recently used, up to the uses of one epoch, which tie.
  @usableFromInline let lastUse = Atomic<UInt64>(0)
  /// When the sweeper last saw the store used (or it was created), in nanoseconds on the
  /// registry's clock. Written with the shard's lock held.
  let idleSince = Atomic<Int64>(0)
  /// `lastUse` as the sweeper last saw it, or `UInt64.max` when the store was held then (the
  /// end of that hold is a use that `lastUse` does not show). Written by the sweeper with the
  /// shard's lock held.
  let sweptUse = Atomic<UInt64>(0)

  /// The bit of `holds` that says an eviction or the shutdown took the store; never cleared
  /// once the slot has left the live stores.
  @inlinable
  static var evicting: Int { 1 << 62 }

  init(store: Store<State, Action>, idleSince: Int64, createdIn epoch: UInt64) {
    self.store = store
    self.trySendEntry = store.trySendEntry
    self.idleSince.store(idleSince, ordering: .relaxed)
    self.lastUse.store(epoch, ordering: .relaxed)
  }

  /// Takes a hold, unless an eviction took the store. Sequentially consistent: a call then
  /// reads the registry's shutdown flag, which the shutdown sets before it waits for holds.
  @inlinable
  func tryHold() -> Bool {
    let before = holds.wrappingAdd(1, ordering: .sequentiallyConsistent).oldValue
    guard before & Self.evicting == 0 else {
      holds.wrappingSubtract(1, ordering: .sequentiallyConsistent)
      return false
    }
    return true
  }

  /// Whether an eviction or the shutdown took the slot; for a synchronous body that uses the
  /// store without a hold, inside a counted read (`StoreRegistry.withLiveStore(_:_:)`): a
  /// take that this load does not see follows it in the total order, and the taker waits for
  /// the read to end before it does anything with the store. Sequentially consistent.
  @inlinable
  var isTaken: Bool {
    holds.load(ordering: .sequentiallyConsistent) & Self.evicting != 0
  }

  /// Notes a use in `epoch` (the registry's use epoch, just read), by a call that holds the
  /// store or uses it inside a counted read. It writes only when `lastUse` is older, so that
  /// the uses of one epoch write the line once. The write is a release, so that a sweeper
  /// that sees this value then sees the hold too (`StoreRegistry.look(at:now:timeout:epoch:)`
  /// says why a use that writes nothing is not missed); a use without a hold that the sweeper
  /// misses may see its store taken as idle, which waits for the use to end.
  @inlinable
  func noteUse(in epoch: UInt64) {
    if lastUse.load(ordering: .relaxed) < epoch {
      lastUse.store(epoch, ordering: .releasing)
    }
  }

  /// Gives a hold back; the call must not touch the slot after it.
  @inlinable
  func release() {
    holds.wrappingSubtract(1, ordering: .sequentiallyConsistent)
  }

  /// Whether a call holds the store now.
  var isHeld: Bool {
    holds.load(ordering: .sequentiallyConsistent) & ~Self.evicting != 0
  }

  /// Takes the store for an eviction or the shutdown, if no call holds it: no hold is taken
  /// after this returns `true`.
  func tryTake() -> Bool {
    holds.compareExchange(
      expected: 0, desired: Self.evicting, ordering: .sequentiallyConsistent
    ).exchanged
  }

  /// Gives back a store taken by ``tryTake()`` that is not evicted after all: calls may hold
  /// it again. (A subtraction, not a store: a call may have added a hold meanwhile, which it
  /// is about to take back.)
  func untake() {
    holds.wrappingSubtract(Self.evicting, ordering: .sequentiallyConsistent)
  }
}

/// The live stores of a shard as they were when it published them, for lookups that take no
/// lock (``RegistryShard/published``). Never changed: a change of the shard's live stores
/// takes the snapshot down, and a later lookup publishes a new one.
@usableFromInline
final class RegistrySnapshot<ID: Hashable & Sendable, State: Sendable, Action: Sendable>:
  Sendable
{
  /// The live stores as the shard had them (the same storage, until the shard's next change
  /// copies it): keeps every slot of `slots` alive as long as the snapshot.
  let live: [RegistryKey<ID>: RegistrySlot<State, Action>]
  /// The same slots, unretained, for lookups: a slot copied out of `live` is retained and
  /// released, two writes to the slot's line, which lookups of the same store from other
  /// threads then have to fetch back. Sendable: each slot is, and `live` keeps it alive.
  @usableFromInline let slots: [RegistryKey<ID>: UnretainedSlot<State, Action>]

  init(live: [RegistryKey<ID>: RegistrySlot<State, Action>]) {
    self.live = live
    self.slots = live.mapValues { UnretainedSlot($0) }
  }
}

/// A slot that something else keeps alive (``RegistrySnapshot``), read without a reference
/// count.
@usableFromInline
struct UnretainedSlot<State: Sendable, Action: Sendable>: @unchecked Sendable {
  // @unchecked Sendable, justified: `Unmanaged` is not Sendable, but the slot it points to is
  // (a Sendable final class, never mutated through this), and it is dereferenced only inside
  // a counted read of the snapshot that holds this value, whose `live` keeps the slot alive
  // until the snapshot is released, after every such read ended (`RegistryReaders`).
  @usableFromInline let slot: Unmanaged<RegistrySlot<State, Action>>

  init(_ slot: RegistrySlot<State, Action>) {
    self.slot = Unmanaged.passUnretained(slot)
  }
}

/// An ID with its hash, computed once per registry call: the shard is chosen from it, and the
/// shard's dictionaries find the ID's entry from it without hashing the ID again.
@usableFromInline
struct RegistryKey<ID: Hashable & Sendable>: Hashable, Sendable {
  @usableFromInline let id: ID
  /// `id.hashValue`: seeded per process, so it is as hard to predict as the ID's own hash.
  @usableFromInline let hash: Int

  @inlinable
  init(_ id: ID) {
    self.id = id
    self.hash = id.hashValue
  }

  @inlinable
  static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.hash == rhs.hash && lhs.id == rhs.id
  }

  @inlinable
  func hash(into hasher: inout Hasher) {
    hasher.combine(hash)
  }

  /// What `Dictionary` asks a key for. The stored hash, mixed with the dictionary's seed by a
  /// finalizer whose every output bit depends on every input bit: the keys of one shard share
  /// their hash's low bits, and a dictionary buckets by its low bits. Equal keys have equal
  /// hashes, so equal keys give equal values, as `Hashable` requires.
  @inlinable
  func _rawHashValue(seed: Int) -> Int {
    var bits = UInt64(UInt(bitPattern: hash ^ seed))
    bits ^= bits &>> 33
    bits &*= 0xff51_afd7_ed55_8ccd
    bits ^= bits &>> 33
    bits &*= 0xc4ce_b9fe_1a85_ec53
    bits ^= bits &>> 33
    return Int(Int64(bitPattern: bits))
  }
}

import Synchronization

/// A live store of a ``StoreRegistry``, with what eviction needs to know of its use.
///
/// The slot's reference count tells whether a registry call holds the store: the shard's
/// dictionary of live stores keeps one reference, and each call that holds the store keeps
/// another, taken with the shard's lock held. Eviction, under the same lock, takes a slot only
/// when `isKnownUniquelyReferenced` finds the dictionary's reference alone, so a held store is
/// never evicted; that check must see the dictionary's own storage (`Dictionary.Values`'
/// in-place subscript), never a copy of the reference. The sweeper learns of uses from
/// `lastUse` (compared with `sweptUse`), without a clock read or a write per use beyond the
/// hold's own.
@usableFromInline
final class RegistrySlot<State: Sendable, Action: Sendable>: Sendable {
  @usableFromInline let store: Store<State, Action>
  /// The shard's use counter at the last use that held the store: orders the shard's stores
  /// from least to most recently used. Written with the shard's lock held.
  @usableFromInline let lastUse = Atomic<UInt64>(0)
  /// When the sweeper last saw the store used (or it was created), in nanoseconds on the
  /// registry's clock. Written with the shard's lock held.
  let idleSince = Atomic<Int64>(0)
  /// `lastUse` as the sweeper last saw it, or `UInt64.max` when the store was held then (the
  /// end of that hold is a use that `lastUse` does not show). Written by the sweeper with the
  /// shard's lock held.
  let sweptUse = Atomic<UInt64>(0)

  init(store: Store<State, Action>, idleSince: Int64) {
    self.store = store
    self.idleSince.store(idleSince, ordering: .relaxed)
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

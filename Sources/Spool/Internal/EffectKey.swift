import ConcurrencyExtras

/// An effect's cancellation ID as the registry keys it: boxed once, hashed once.
///
/// `AnyHashableSendable` boxes both sides into `AnyHashable`s on every `==`, and a dictionary
/// keyed by it hashes through the existential on every lookup; a `cancelInFlight` restart looks
/// its ID up three times under the registry's lock (take the running task, then reserve the
/// new one), so those boxes and hashes were a large part of a restart
/// (`spool bench cancellation`). Equality is `AnyHashable`'s, as `AnyHashableSendable`'s is,
/// and the hash is the `AnyHashable`'s, so two keys are equal exactly when their IDs are.
struct EffectKey: Hashable, @unchecked Sendable {
  // @unchecked Sendable, justified: `base` is made only by `init(_:)`, from an
  // `AnyHashableSendable`, whose `base` is `Sendable`; an `AnyHashable` is an immutable box
  // around that value (no `mutating` API reaches it), so sharing the box shares only the
  // Sendable value. `hashCode` is an `Int`.
  let base: AnyHashable
  let hashCode: Int

  init(_ id: AnyHashableSendable) {
    base = AnyHashable(id.base)
    hashCode = base.hashValue
  }

  func hash(into hasher: inout Hasher) {
    hasher.combine(hashCode)
  }

  static func == (lhs: EffectKey, rhs: EffectKey) -> Bool {
    lhs.hashCode == rhs.hashCode && lhs.base == rhs.base
  }
}

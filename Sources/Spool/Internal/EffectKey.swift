import ConcurrencyExtras

/// An effect's cancellation ID as the registry keys it: boxed once, hashed once, and compared
/// without a dynamic cast when it is a plain value.
///
/// `AnyHashableSendable` boxes both sides into `AnyHashable`s on every `==`, and a dictionary
/// keyed by it hashes through the existential on every lookup; a `cancelInFlight` restart looks
/// its ID up under the registry's lock to take the running task and to reserve the new one, so
/// those boxes, hashes and casts were a large part of a restart (`spool bench cancellation`).
///
/// Equality is `AnyHashable`'s, as `AnyHashableSendable`'s is, with one shortcut: two IDs of
/// the same type that has no references (an enum case, an integer, a struct of them) and the
/// same bits are equal without asking `==` (which, through `AnyHashable`, casts and
/// instantiates metadata). Equal bits imply `==` for every type whose equality is reflexive,
/// as `Equatable` requires; bits that differ (padding, a type with several representations of
/// one value) fall back to `==`. The hash is the `AnyHashable`'s, so two keys are equal
/// exactly when their IDs are.
struct EffectKey: Hashable, @unchecked Sendable {
  // @unchecked Sendable, justified: `base` is made only by `init(_:)`, from an
  // `AnyHashableSendable`, whose `base` is `Sendable`; an `AnyHashable` is an immutable box
  // around that value (no `mutating` API reaches it), so sharing the box shares only the
  // Sendable value. The other fields are integers.
  let base: AnyHashable
  let hashCode: Int
  /// The ID's type, for the shortcut; meaningful only when `hasBits`.
  let type: ObjectIdentifier
  /// The ID's bits, when its type has no references and fits in two words.
  let bits: (UInt64, UInt64)
  let hasBits: Bool

  init(_ id: AnyHashableSendable) {
    self.init(opening: id.base)
  }

  private init<ID: Hashable & Sendable>(opening id: ID) {
    base = AnyHashable(id)
    hashCode = base.hashValue
    type = ObjectIdentifier(ID.self)
    if _isPOD(ID.self) && MemoryLayout<ID>.size <= MemoryLayout<(UInt64, UInt64)>.size {
      var words: (UInt64, UInt64) = (0, 0)
      withUnsafeBytes(of: id) { source in
        withUnsafeMutableBytes(of: &words) { $0.copyMemory(from: source) }
      }
      bits = words
      hasBits = true
    } else {
      bits = (0, 0)
      hasBits = false
    }
  }

  func hash(into hasher: inout Hasher) {
    hasher.combine(hashCode)
  }

  static func == (lhs: EffectKey, rhs: EffectKey) -> Bool {
    guard lhs.hashCode == rhs.hashCode else { return false }
    if lhs.hasBits && rhs.hasBits && lhs.type == rhs.type && lhs.bits == rhs.bits {
      return true
    }
    return lhs.base == rhs.base
  }
}

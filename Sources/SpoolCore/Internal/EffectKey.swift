import ConcurrencyExtras
import Synchronization

/// An effect's cancellation ID as the registry keys it: hashed once, and compared without a
/// dynamic cast when it is a plain value.
///
/// `AnyHashableSendable` boxes both sides into `AnyHashable`s on every `==`, and a dictionary
/// keyed by it hashes through the existential on every lookup; a `cancelInFlight` restart looks
/// its ID up under the registry's lock to take the running task and to reserve the new one, so
/// those boxes, hashes and casts were a large part of a restart (`spool bench cancellation`).
///
/// Equality is `AnyHashable`'s, as `AnyHashableSendable`'s is. A *plain* ID (a type with no
/// references, at most two words, that `AnyHashable` wraps as it is: an enum case, a struct of
/// flags) is never boxed: `AnyHashable` makes such a value equal only to a value of the same
/// type that `==` calls equal, and hashes it as the value hashes itself, so the key compares
/// type and bits (equal bits imply `==` for a reflexive equality; bits that differ, such as
/// padding, fall back to `==`) and takes the value's own hash. Building the `AnyHashable`
/// was most of a key's cost (its initializer asks the runtime whether the type has a custom
/// representation, on every call). Other IDs (numbers, which `AnyHashable` compares across
/// integer types; strings; classes; IDs that wrap another ID) keep an `AnyHashable`, and a
/// plain ID compared with one of them is boxed for that comparison.
struct EffectKey: Hashable, @unchecked Sendable {
  // @unchecked Sendable, justified: `id` is `Sendable` (it comes from an
  // `AnyHashableSendable`); `boxed` is made only by `init(opening:)`, from that same `Sendable`
  // value, and an `AnyHashable` is an immutable box around it (no `mutating` API reaches it),
  // so sharing the box shares only the Sendable value. The other fields are integers.
  let id: any Hashable & Sendable
  /// `AnyHashable(id)`, for an ID that is not plain; `nil` for a plain one.
  let boxed: AnyHashable?
  let hashCode: Int
  /// The ID's type, for the shortcut; meaningful only when `isPlain`.
  let type: ObjectIdentifier
  /// The ID's bits, when it is plain.
  let bits: (UInt64, UInt64)

  init(_ id: AnyHashableSendable) {
    self.init(opening: id.base)
  }

  private init<ID: Hashable & Sendable>(opening id: ID) {
    self.id = id
    type = ObjectIdentifier(ID.self)
    if PlainIDTypes.isPlain(ID.self) {
      var words: (UInt64, UInt64) = (0, 0)
      withUnsafeBytes(of: id) { source in
        withUnsafeMutableBytes(of: &words) { $0.copyMemory(from: source) }
      }
      bits = words
      boxed = nil
      // What `AnyHashable(id).hashValue` is for a type `AnyHashable` wraps as it is.
      hashCode = id.hashValue
    } else {
      bits = (0, 0)
      let boxed = AnyHashable(id)
      self.boxed = boxed
      hashCode = boxed.hashValue
    }
  }

  var isPlain: Bool { boxed == nil }

  func hash(into hasher: inout Hasher) {
    hasher.combine(hashCode)
  }

  static func == (lhs: EffectKey, rhs: EffectKey) -> Bool {
    guard lhs.hashCode == rhs.hashCode else { return false }
    switch (lhs.boxed, rhs.boxed) {
    case (nil, nil):
      return lhs.type == rhs.type && (lhs.bits == rhs.bits || equal(lhs.id, rhs.id))
    case let (left?, right?):
      return left == right
    case let (nil, right?):
      return AnyHashable(lhs.id) == right
    case let (left?, nil):
      return left == AnyHashable(rhs.id)
    }
  }

  /// `==` of two IDs of one type (the caller checked), opened from their existentials.
  private static func equal(
    _ lhs: any Hashable & Sendable, _ rhs: any Hashable & Sendable
  ) -> Bool {
    func open<ID: Hashable>(_ lhs: ID) -> Bool { (rhs as? ID) == lhs }
    return open(lhs)
  }
}

/// Which ID types ``EffectKey`` treats as plain: no references, at most two words, and no
/// custom `AnyHashable` representation (numbers have one).
///
/// Whether a type has a custom representation is a dynamic cast of its metatype (a
/// conformance lookup in the runtime, the one `AnyHashable`'s initializer makes on every
/// call); the answer never changes, so it is asked once per type and remembered (a program has a handful of cancellation ID types; past ``capacity`` of them,
/// the rest are asked each time).
enum PlainIDTypes {
  static let capacity = 64
  static let known = Mutex<[ObjectIdentifier: Bool]>([:])

  static func isPlain<ID>(_ type: ID.Type) -> Bool {
    guard _isPOD(ID.self) && MemoryLayout<ID>.size <= MemoryLayout<(UInt64, UInt64)>.size
    else { return false }
    let key = ObjectIdentifier(ID.self)
    if let answer = known.withLock({ $0[key] }) { return answer }
    let answer = !(ID.self is any _HasCustomAnyHashableRepresentation.Type)
    known.withLock { known in
      if known.count < capacity { known[key] = answer }
    }
    return answer
  }
}

import ConcurrencyExtras
import Testing

@testable import SpoolCore

/// The registry's keys are equal exactly when their IDs are equal as `AnyHashable`s, whether
/// they take the shortcut for plain values or not.
@Suite struct EffectKeyTests {
  enum Download: Hashable, Sendable { case file, image }
  enum Upload: Hashable, Sendable { case file }
  /// A plain value whose `AnyHashable` is another ID's.
  struct Wrapped: Hashable, Sendable, _HasCustomAnyHashableRepresentation {
    var inner: Download
    func _toCustomAnyHashable() -> AnyHashable? { AnyHashable(inner) }
  }
  struct Padded: Hashable, Sendable {
    var flag: Bool
    var value: Int
  }

  static func key(_ id: some Hashable & Sendable) -> EffectKey {
    EffectKey(AnyHashableSendable(id))
  }

  static func agrees(_ a: some Hashable & Sendable, _ b: some Hashable & Sendable) -> Bool {
    let expected = AnyHashable(a) == AnyHashable(b)
    let keys = (key(a), key(b))
    let hashes = keys.0.hashValue == keys.1.hashValue
    return (keys.0 == keys.1) == expected && (!expected || hashes)
  }

  @Test func plainValuesCompareByValue() {
    #expect(Self.key(Download.file) == Self.key(Download.file))
    #expect(Self.key(Download.file) != Self.key(Download.image))
    #expect(Self.key(42) == Self.key(42))
    #expect(Self.key(42) != Self.key(43))
    #expect(Self.key(Padded(flag: true, value: 1)) == Self.key(Padded(flag: true, value: 1)))
  }

  /// Two cases with the same bits in different types are different IDs.
  @Test func sameBitsOfAnotherTypeAreAnotherID() {
    #expect(Self.key(Download.file) != Self.key(Upload.file))
    #expect(Self.agrees(Download.file, Upload.file))
  }

  /// Numbers compare as `AnyHashable` compares them: across integer types.
  @Test func numbersKeepAnyHashableSemantics() {
    #expect(Self.agrees(1, Int8(1)))
    #expect(Self.agrees(UInt64(7), 7))
    #expect(Self.agrees(1, 2.0))
  }

  /// IDs with references (strings, nested IDs) take `==`.
  @Test func referencesCompareThroughEquality() {
    #expect(Self.key("download") == Self.key(String("down") + "load"))
    #expect(Self.key("download") != Self.key("upload"))
    #expect(Self.agrees(AnyHashableSendable(Download.file), Download.file))
  }

  /// The registry finds a running effect by an equal ID built elsewhere.
  @Test func theRegistryFindsAnEqualID() {
    var machine = EffectRegistryStateMachine()
    _ = machine.reserve(ids: [AnyHashableSendable(Download.file)])
    #expect(machine.count(for: AnyHashableSendable(Download.file)) == 1)
    #expect(machine.count(for: AnyHashableSendable(Upload.file)) == 0)
    #expect(machine.count(for: AnyHashableSendable(Download.image)) == 0)
  }

  /// Plain IDs (no references, two words at most, no custom `AnyHashable` representation) are
  /// never boxed; numbers (compared across integer types), strings and IDs that wrap another
  /// ID keep their `AnyHashable`.
  @Test func onlyPlainIDsSkipTheBox() {
    #expect(Self.key(Download.file).isPlain)
    #expect(Self.key(Padded(flag: true, value: 1)).isPlain)
    #expect(!Self.key(42).isPlain)
    #expect(!Self.key(2.5).isPlain)
    #expect(!Self.key("download").isPlain)
    #expect(!Self.key(Wrapped(inner: .file)).isPlain)
    // `AnyHashableSendable` unwraps another one: the same plain ID.
    #expect(Self.key(AnyHashableSendable(Download.file)).isPlain)
    // The remembered answer is the same as the first.
    #expect(PlainIDTypes.isPlain(Download.self) && PlainIDTypes.isPlain(Download.self))
    #expect(!PlainIDTypes.isPlain(Int.self) && !PlainIDTypes.isPlain(Int.self))
  }

  /// A plain ID and an ID whose `AnyHashable` representation is that ID are one ID, in both
  /// orders, with one hash, as `AnyHashable` says.
  @Test func aPlainIDEqualsTheSameIDWrapped() {
    let plain = Self.key(Download.file)
    let wrapped = Self.key(Wrapped(inner: .file))
    #expect(Self.agrees(Download.file, Wrapped(inner: .file)))
    #expect(plain == wrapped && wrapped == plain)
    #expect(plain.hashValue == wrapped.hashValue)
    #expect(Self.key(Download.image) != wrapped)
    #expect(Self.agrees(Download.image, Wrapped(inner: .file)))
  }
}

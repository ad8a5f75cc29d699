import ConcurrencyExtras
import Testing

@testable import Spool

/// The registry's keys are equal exactly when their IDs are equal as `AnyHashable`s, whether
/// they take the shortcut for plain values or not.
@Suite struct EffectKeyTests {
  enum Download: Hashable, Sendable { case file, image }
  enum Upload: Hashable, Sendable { case file }
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
}

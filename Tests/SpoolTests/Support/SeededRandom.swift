#if canImport(Glibc)
  import Glibc
#endif

/// A small, fast, seeded generator (SplitMix64), so that randomized tests replay exactly.
struct SeededGenerator: RandomNumberGenerator, Sendable {
  private var state: UInt64

  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    return mix(state)
  }
}

/// SplitMix64's finalizer: a bijection on 64-bit values that spreads every input bit, used as a
/// checksum term that a lost and a duplicated action cannot cancel out by accident.
func mix(_ value: UInt64) -> UInt64 {
  var z = value
  z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
  z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
  return z ^ (z >> 31)
}

/// The seed of a randomized test: `fallback`, or the value of the environment variable `name`
/// (decimal or 0x-prefixed hexadecimal) to replay or vary a run.
func testSeed(_ name: String, default fallback: UInt64) -> UInt64 {
  guard let raw = getenv(name).map({ String(cString: $0) }) else { return fallback }
  if raw.hasPrefix("0x"), let value = UInt64(raw.dropFirst(2), radix: 16) { return value }
  guard let value = UInt64(raw) else {
    preconditionFailure("\(name)=\(raw): expected a decimal or 0x-prefixed hexadecimal seed")
  }
  return value
}

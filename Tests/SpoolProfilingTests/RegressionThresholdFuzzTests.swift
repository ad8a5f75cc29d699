import Testing

@testable import SpoolProfiling

/// Seeded fuzzing of `spool compare --threshold` parsing (`RegressionThreshold(parsing:)`):
/// every input is either refused with an error that quotes it, or gives a finite threshold
/// from 0% up to (not including) 1000% whose description parses back to the same threshold.
@Suite(.timeLimit(.minutes(10)))
struct RegressionThresholdFuzzTests {
  /// Pieces that make the parser's edge cases likely: signs, exponents, hexadecimal floats,
  /// non-finite spellings, percent signs, blanks and non-ASCII.
  static let pieces = [
    "0", "1", "5", "9", "10", "999", "1000", ".", "%", "%%", "-", "+", "e", "E", "e-", "e+",
    "0x", "p", "nan", "NaN", "inf", "infinity", " ", "\t", "\n", "١", "٪", "％", "\u{0}",
    "_", ",", "1e3", "9.99e2", "1e-320", "00", "0.0000001",
  ]

  @Test func randomThresholds() throws {
    let configuration = FuzzConfiguration(defaultSeed: 0x7E5_0010, defaultIterations: 20_000)
    print("RegressionThresholdFuzzTests: \(configuration)")
    var random = SeededGenerator(seed: configuration.seed)
    var accepted = 0
    for iteration in 0..<configuration.iterations {
      var text = ""
      for _ in 0..<random.below(6) { text += Self.pieces[random.below(Self.pieces.count)] }
      let context = "input \(text.debugDescription), iteration \(iteration), \(configuration)"
      let threshold: RegressionThreshold
      do {
        threshold = try RegressionThreshold(parsing: text)
      } catch {
        #expect(error.text == text, "\(context)")
        #expect(error.description.contains("'\(text)'"), "\(context)")
        continue
      }
      accepted += 1
      #expect(threshold.fraction.isFinite, "\(context)")
      #expect(threshold.fraction >= 0 && threshold.fraction < 10, "\(context)")
      // `spool compare` prints the threshold; what it prints must read back.
      let reread = try RegressionThreshold(parsing: threshold.description)
      #expect(
        abs(reread.fraction - threshold.fraction) <= 1e-12 * max(1, threshold.fraction),
        "\(threshold.description), \(context)")
    }
    #expect(accepted > 0 && accepted < configuration.iterations, "\(configuration)")
  }
}

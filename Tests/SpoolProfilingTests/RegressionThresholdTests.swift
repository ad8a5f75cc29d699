import SpoolProfiling
import Testing

@Suite struct RegressionThresholdTests {
  @Test func parsesPercentages() throws {
    #expect(try RegressionThreshold(parsing: "10%").fraction == 0.1)
    #expect(try RegressionThreshold(parsing: "2.5%").fraction == 0.025)
    #expect(try RegressionThreshold(parsing: "5").fraction == 0.05)
    #expect(try RegressionThreshold(parsing: "0%").fraction == 0)
    #expect(RegressionThreshold(fraction: 0.1).description == "10%")
  }

  @Test func rejectsWhatIsNotAPercentage() {
    for text in ["", "%", "ten", "-5%", "nan", "inf", "1e9%", "10%%"] {
      #expect(throws: RegressionThreshold.ParseError.self) {
        try RegressionThreshold(parsing: text)
      }
    }
  }
}

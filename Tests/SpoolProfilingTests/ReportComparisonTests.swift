import SpoolProfiling
import Testing

@Suite struct ReportComparisonTests {
  private let threshold = RegressionThreshold(fraction: 0.1)

  @Test func identicalReportsHaveNoRegressions() {
    let comparison = ReportComparison(
      base: Fixtures.report(), new: Fixtures.report(), threshold: threshold)
    #expect(!comparison.hasRegressions)
    #expect(comparison.rows.allSatisfy { $0.ratio == 1 })
    // Throughput, then p50 and p99 of reduce for each of the two cases.
    #expect(comparison.rows.count == 5)
    #expect(comparison.text().hasSuffix("no regressions beyond 10%\n"))
  }

  @Test func slowerReduceBeyondTheThresholdIsARegression() throws {
    let new = Fixtures.report([Fixtures.workload(reduceP50: 45, reduceP99: 120)])
    let comparison = ReportComparison(base: Fixtures.report(), new: new, threshold: threshold)
    let flagged = comparison.rows.filter(\.isRegression).map(\.subject)
    // p50 40 → 45 is +12.5%; p99 90 → 120 is +33%.
    #expect(flagged == ["incrementButtonTapped reduce p50", "incrementButtonTapped reduce p99"])
    #expect(comparison.text().contains("REGRESSION"))
    #expect(comparison.text().hasSuffix("2 regressions beyond 10%\n"))
  }

  @Test func changesWithinTheThresholdAreNot() {
    let new = Fixtures.report([
      Fixtures.workload(throughput: 910_000, reduceP50: 43, reduceP99: 99)
    ])
    #expect(
      !ReportComparison(base: Fixtures.report(), new: new, threshold: threshold).hasRegressions)
  }

  @Test func lowerThroughputBeyondTheThresholdIsARegression() throws {
    let new = Fixtures.report([Fixtures.workload(throughput: 800_000)])
    let comparison = ReportComparison(base: Fixtures.report(), new: new, threshold: threshold)
    let row = try #require(comparison.rows.first)
    #expect(row.subject == "throughput")
    #expect(row.isRegression)
    #expect(abs((row.ratio ?? 0) - 0.8) < 1e-9)
  }

  @Test func fasterIsNeverARegression() {
    let new = Fixtures.report([
      Fixtures.workload(throughput: 3_000_000, reduceP50: 10, reduceP99: 20)
    ])
    #expect(
      !ReportComparison(base: Fixtures.report(), new: new, threshold: threshold).hasRegressions)
  }

  @Test func unmatchedWorkloadsAndCasesAreListedNotFlagged() {
    var changed = Fixtures.workload()
    changed.actionCases.removeFirst()
    let new = Fixtures.report([changed, Fixtures.workload(name: "echo")])
    let comparison = ReportComparison(base: Fixtures.report(), new: new, threshold: threshold)
    #expect(
      comparison.unmatched == ["only in base: counter/child(.row(.toggle))", "only in new: echo"])
    #expect(!comparison.hasRegressions)
  }
}

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

  private func report(_ change: (inout ReportEnvironment) -> Void) -> Report {
    var report = Fixtures.report()
    change(&report.environment)
    return report
  }

  @Test func reportsFromDifferentMachinesAreWarnedAbout() {
    let other = report {
      $0.cpuModel = "Other CPU"
      $0.cores = 8
      $0.allowedCores = 8
      $0.crossCoreRoundTripNanoseconds = 400
      $0.timeSource = "monotonicClock"
      $0.clockReadNanoseconds = 27.5
    }
    let comparison = ReportComparison(base: Fixtures.report(), new: other, threshold: threshold)
    #expect(
      comparison.machineDifferences == [
        "CPU 'Test CPU @ 3.00GHz' vs 'Other CPU'", "cores 2 vs 8", "cores allowed 2 vs 8",
        "cross-core round trip 180ns vs 400ns", "clock counter vs monotonicClock",
        "clock read 11.4ns vs 27.5ns",
      ])
    #expect(
      comparison.text().hasPrefix(
        "warning: the reports come from different machines: CPU 'Test CPU @ 3.00GHz' vs "
          + "'Other CPU', cores 2 vs 8, cores allowed 2 vs 8, cross-core round trip 180ns vs "
          + "400ns, clock counter vs monotonicClock, clock read 11.4ns vs 27.5ns; their ratios "
          + "are not comparable\n"))
    // A warning, not a regression: the exit status does not change.
    #expect(!comparison.hasRegressions)
  }

  @Test func aRoundTripWithin25PercentIsTheSameMachine() {
    for (roundTrip, differs) in [(225.0, false), (144.5, false), (226.0, true), (144.0, true)] {
      let new = report { $0.crossCoreRoundTripNanoseconds = roundTrip }
      let comparison = ReportComparison(base: Fixtures.report(), new: new, threshold: threshold)
      #expect(comparison.machineDifferences.isEmpty != differs, "\(roundTrip)")
    }
  }

  @Test func aClockReadWithin25PercentIsTheSameMachine() {
    for (clockRead, differs) in [(14.2, false), (9.2, false), (14.3, true), (9.1, true)] {
      let new = report { $0.clockReadNanoseconds = clockRead }
      let comparison = ReportComparison(base: Fixtures.report(), new: new, threshold: threshold)
      #expect(
        comparison.machineDifferences
          == (differs ? [String(format: "clock read 11.4ns vs %.1fns", clockRead)] : []),
        "\(clockRead)")
    }
  }

  @Test func aFigureOnlyOneReportHasIsNotADifference() {
    let old = report {
      $0.cpuModel = nil
      $0.allowedCores = nil
      $0.crossCoreRoundTripNanoseconds = nil
      $0.timeSource = nil
      $0.clockReadNanoseconds = nil
    }
    for (base, new) in [(old, Fixtures.report()), (Fixtures.report(), old)] {
      let comparison = ReportComparison(base: base, new: new, threshold: threshold)
      #expect(comparison.machineDifferences.isEmpty)
      #expect(!comparison.text().contains("warning"))
    }
  }
}

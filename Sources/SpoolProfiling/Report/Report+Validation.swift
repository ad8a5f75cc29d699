extension Report {
  /// The first value of the report that no run can have produced, as one line naming its
  /// field (`workloads[0].actions is -5; a count cannot be negative`); `nil` when every value
  /// is possible.
  ///
  /// What is impossible: a negative count, size or duration; a figure that is NaN or infinite;
  /// percentiles out of order (p50 ≤ p90 ≤ p99 ≤ p99.9 ≤ max, and a distribution whose
  /// percentiles and values both rise). Printing or comparing such a report would show
  /// figures as if they had been measured.
  func impossibleValue() -> String? {
    var check = ReportValueCheck()
    check.count(environment.cores, "environment.cores")
    if let allowed = environment.allowedCores { check.count(allowed, "environment.allowedCores") }
    if let roundTrip = environment.crossCoreRoundTripNanoseconds {
      check.figure(roundTrip, "environment.crossCoreRoundTripNanoseconds")
    }
    if let clockRead = environment.clockReadNanoseconds {
      check.figure(clockRead, "environment.clockReadNanoseconds")
    }
    for (index, workload) in workloads.enumerated() {
      check.workload(workload, "workloads[\(index)]")
      if let problem = check.problem { return problem }
    }
    return check.problem
  }
}

/// Walks a report's values and keeps the first impossible one.
private struct ReportValueCheck {
  private(set) var problem: String?

  mutating func fail(_ field: String, _ value: String, _ why: String) {
    if problem == nil { problem = "\(field) is \(value); \(why)" }
  }

  mutating func count(_ value: Int, _ field: String) {
    if value < 0 { fail(field, "\(value)", "a count or size cannot be negative") }
  }

  /// A measured figure (a duration, a rate, a mean): finite and not negative.
  mutating func figure(_ value: Double, _ field: String) {
    if value.isNaN {
      fail(field, "NaN", "a measured figure must be a number")
    } else if value.isInfinite {
      fail(field, "\(value)", "a measured figure must be finite")
    } else if value < 0 {
      fail(field, "\(value)", "a duration or rate cannot be negative")
    }
  }

  mutating func ordered(_ values: [(String, UInt64)], _ field: String) {
    for (lower, higher) in zip(values, values.dropFirst()) where lower.1 > higher.1 {
      fail(
        "\(field).\(lower.0)", "\(lower.1)",
        "above \(higher.0) (\(higher.1)); percentiles must not decrease")
      return
    }
  }

  mutating func workload(_ workload: WorkloadReport, _ field: String) {
    count(workload.actions, "\(field).actions")
    figure(workload.durationSeconds, "\(field).durationSeconds")
    figure(workload.throughputPerSecond, "\(field).throughputPerSecond")
    if let peak = workload.peakRSSBytes { count(peak, "\(field).peakRSSBytes") }
    if let interval = workload.timingSampleInterval, interval < 1 {
      fail(
        "\(field).timingSampleInterval", "\(interval)",
        "one action timed in this many: 1 or more")
    }
    for (index, baseline) in workload.baselines.enumerated() {
      figure(baseline.throughputPerSecond, "\(field).baselines[\(index)].throughputPerSecond")
    }
    for (index, round) in (workload.rounds ?? []).enumerated() {
      let path = "\(field).rounds[\(index)]"
      figure(round.durationSeconds, "\(path).durationSeconds")
      figure(round.throughputPerSecond, "\(path).throughputPerSecond")
      for (inner, baseline) in round.baselines.enumerated() {
        figure(baseline.throughputPerSecond, "\(path).baselines[\(inner)].throughputPerSecond")
      }
    }
    for (index, actionCase) in workload.actionCases.enumerated() {
      let path = "\(field).actionCases[\(index)]"
      count(actionCase.count, "\(path).count")
      summary(actionCase.queueWait, "\(path).queueWait")
      summary(actionCase.reduce, "\(path).reduce")
    }
    for (index, effect) in workload.effects.enumerated() {
      let path = "\(field).effects[\(index)]"
      count(effect.started, "\(path).started")
      count(effect.finished, "\(path).finished")
      count(effect.cancelled, "\(path).cancelled")
      count(effect.failed, "\(path).failed")
      summary(effect.lifetime, "\(path).lifetime")
    }
    if let timeline = workload.timeline { self.timeline(timeline, "\(field).timeline") }
  }

  mutating func summary(_ summary: LatencySummary, _ field: String) {
    count(summary.count, "\(field).count")
    figure(summary.meanNanoseconds, "\(field).meanNanoseconds")
    ordered(
      [
        ("p50Nanoseconds", summary.p50Nanoseconds), ("p90Nanoseconds", summary.p90Nanoseconds),
        ("p99Nanoseconds", summary.p99Nanoseconds), ("p999Nanoseconds", summary.p999Nanoseconds),
        ("maxNanoseconds", summary.maxNanoseconds),
      ], field)
    var previous: PercentilePoint?
    for (index, point) in summary.distribution.enumerated() {
      let path = "\(field).distribution[\(index)]"
      if !(point.percentile >= 0 && point.percentile <= 100) {
        fail("\(path).percentile", "\(point.percentile)", "a percentile lies in 0...100")
      } else if let previous, point.percentile < previous.percentile {
        fail(
          "\(path).percentile", "\(point.percentile)",
          "below the point before it (\(previous.percentile)); percentiles must rise")
      } else if let previous, point.nanoseconds < previous.nanoseconds {
        fail(
          "\(path).nanoseconds", "\(point.nanoseconds)",
          "below the point before it (\(previous.nanoseconds)); percentiles must not decrease")
      }
      previous = point
    }
  }

  mutating func timeline(_ timeline: Timeline, _ field: String) {
    figure(timeline.intervalSeconds, "\(field).intervalSeconds")
    for (index, sample) in timeline.samples.enumerated() {
      let path = "\(field).samples[\(index)]"
      figure(sample.elapsedSeconds, "\(path).elapsedSeconds")
      figure(sample.durationSeconds, "\(path).durationSeconds")
      count(sample.residentBytes, "\(path).residentBytes")
      count(sample.actions, "\(path).actions")
      count(sample.liveEffects, "\(path).liveEffects")
      for (name, latency) in [("queueWait", sample.queueWait), ("reduce", sample.reduce)] {
        ordered(
          [
            ("p50Nanoseconds", latency.p50Nanoseconds),
            ("p99Nanoseconds", latency.p99Nanoseconds),
            ("maxNanoseconds", latency.maxNanoseconds),
          ], "\(path).\(name)")
      }
      for (inner, feature) in sample.features.enumerated() {
        count(feature.actions, "\(path).features[\(inner)].actions")
        count(feature.liveEffects, "\(path).features[\(inner)].liveEffects")
      }
      if problem != nil { return }
    }
    count(timeline.flatness.warmUpSamples, "\(field).flatness.warmUpSamples")
    count(timeline.flatness.windowSamples, "\(field).flatness.windowSamples")
    for (index, check) in timeline.flatness.checks.enumerated() {
      let path = "\(field).flatness.checks[\(index)]"
      figure(check.first, "\(path).first")
      figure(check.last, "\(path).last")
      figure(check.maximumRatio, "\(path).maximumRatio")
      figure(check.floor, "\(path).floor")
    }
  }
}

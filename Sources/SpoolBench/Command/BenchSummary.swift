import Foundation
import SpoolProfiling

/// The table the bench command prints at the end: the machine (the header of `spool report`'s
/// table: host, cores, toolchain, processor and its cross-core round trip), then per workload,
/// Spool's throughput and memory, then each baseline's throughput and Spool's throughput
/// divided by it.
enum BenchSummary {
  static func text(_ report: SpoolProfiling.Report) -> String {
    var lines = report.environment.headerLines() + [""]
    // One column for every baseline's name, as wide as the longest (never cut).
    let nameWidth = report.workloads.flatMap(\.baselines).map(\.name.count).reduce(17, max) + 1
    for workload in report.workloads {
      var head = "\(workload.name): \(workload.actions) in "
        + String(format: "%.3f s", workload.durationSeconds)
        + " · \(rate(workload.throughputPerSecond))"
      if let peak = workload.peakRSSBytes {
        head += " · peak RSS " + String(format: "%.1f MiB", Double(peak) / 1_048_576)
      }
      if let backend = workload.ioBackend { head += " · \(backend)" }
      if let rounds = workload.rounds { head += " · median of \(rounds.count) rounds" }
      lines.append(head)
      for baseline in workload.baselines {
        let ratio = baseline.throughputPerSecond > 0
          ? String(format: "%.2fx", workload.throughputPerSecond / baseline.throughputPerSecond)
          : "-"
        var line = "  " + baseline.name.padding(toLength: nameWidth, withPad: " ", startingAt: 0)
          + rate(baseline.throughputPerSecond).leftPadded(to: 10)
          + "   spool/baseline " + ratio
        if let spread = roundRatios(workload, baseline: baseline.name) {
          line += " (rounds \(spread))"
        }
        lines.append(line)
      }
      if let timeline = workload.timeline {
        lines.append(contentsOf: timeline.summaryLines().map { "  " + $0 })
      }
      for effect in workload.effects {
        lines.append(
          "  effects of \(effect.label): started \(effect.started), finished "
            + "\(effect.finished), cancelled \(effect.cancelled), failed \(effect.failed)")
      }
    }
    return lines.joined(separator: "\n") + "\n"
  }

  /// Each round's ratio of Spool to `baseline`, in the order the rounds ran: `1.21x 1.35x
  /// 1.18x`; `nil` for a workload that ran once.
  static func roundRatios(_ workload: WorkloadReport, baseline: String) -> String? {
    guard let rounds = workload.rounds else { return nil }
    let ratios = rounds.map { round -> String in
      guard let figure = round.baselines.first(where: { $0.name == baseline }),
        figure.throughputPerSecond > 0
      else { return "-" }
      return String(format: "%.2fx", round.throughputPerSecond / figure.throughputPerSecond)
    }
    return ratios.joined(separator: " ")
  }

  /// `12.3M/s`, `45.6k/s`, `789/s`.
  static func rate(_ perSecond: Double) -> String {
    switch perSecond {
    case 1e6...: String(format: "%.2fM/s", perSecond / 1e6)
    case 1e3...: String(format: "%.1fk/s", perSecond / 1e3)
    default: String(format: "%.0f/s", perSecond)
    }
  }
}

extension String {
  fileprivate func leftPadded(to width: Int) -> String {
    count >= width ? self : String(repeating: " ", count: width - count) + self
  }
}

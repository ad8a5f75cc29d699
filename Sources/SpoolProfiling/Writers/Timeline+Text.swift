import Foundation

extension Timeline {
  /// The timeline for a terminal, compactly: a heading with the verdict, one sparkline per
  /// figure (scaled from 0 to its largest value, so that a flat line reads flat), and the
  /// verdict's checks.
  ///
  /// ```swift
  /// print(timeline.summaryLines().joined(separator: "\n"))
  /// // timeline: 60 samples every 1.00s · flat (samples 7-24 vs 43-60)
  /// // RSS             ▇▇▇▇▇▇▇▇▇▇  40.1 MiB … 41.0 MiB
  /// // …
  /// ```
  public func summaryLines(width: Int = 60) -> [String] {
    var lines: [String] = []
    let verdict = flatness
    var heading = "timeline: \(samples.count) samples every "
      + DurationText.nanoseconds(intervalSeconds * 1e9) + " · \(verdict.outcome.rawValue)"
    if verdict.outcome != .tooShort {
      let first = verdict.warmUpSamples + 1
      let last = samples.count - verdict.windowSamples + 1
      heading += " (samples \(first)-\(first + verdict.windowSamples - 1) vs "
        + "\(last)-\(samples.count))"
    }
    lines.append(heading)
    guard !samples.isEmpty else { return lines }
    let rows: [(String, [Double], (Double) -> String)] = [
      ("RSS", samples.map { Double($0.residentBytes) }, { DurationText.bytes(Int($0)) }),
      ("actions/s", samples.map(\.throughputPerSecond), { DurationText.rate($0) }),
      (
        "queue wait p99", samples.map { Double($0.queueWait.p99Nanoseconds) },
        { DurationText.nanoseconds($0) }
      ),
      (
        "reduce p99", samples.map { Double($0.reduce.p99Nanoseconds) },
        { DurationText.nanoseconds($0) }
      ),
      ("live effects", samples.map { Double($0.liveEffects) }, { String(format: "%.0f", $0) }),
    ]
    for (title, values, format) in rows {
      let low = values.min() ?? 0
      let high = values.max() ?? 0
      lines.append(
        title.padding(toLength: 16, withPad: " ", startingAt: 0)
          + Self.sparkline(values, width: width) + "  \(format(low)) … \(format(high))")
    }
    lines.append(contentsOf: verdict.checks.map(\.description))
    return lines
  }

  /// One character per value (the largest of each group when there are more than `width`),
  /// from `▁` (0) to `█` (the largest value).
  static func sparkline(_ values: [Double], width: Int) -> String {
    let levels: [Character] = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]
    guard !values.isEmpty, width > 0 else { return "" }
    let groups = (values.count + width - 1) / width
    let points = stride(from: 0, to: values.count, by: groups).map { start in
      values[start..<Swift.min(values.count, start + groups)].max() ?? 0
    }
    let high = points.max() ?? 0
    return String(
      points.map { value in
        guard high > 0, value > 0 else { return levels[0] }
        let level = Int((value / high * Double(levels.count - 1)).rounded())
        return levels[Swift.min(levels.count - 1, Swift.max(0, level))]
      })
  }
}

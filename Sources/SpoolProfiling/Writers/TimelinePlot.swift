import Foundation

/// Geometry and drawing of a timeline's SVG panel: RSS over time above, queue wait and reduce
/// p99 over time below (log scale), with the warm-up greyed and the two thirds that the
/// flatness verdict compares tinted.
struct TimelinePlot: SVGMarkup {
  let width = 900
  let panelHeight = 520
  let left = 70.0
  let right = 230.0
  let chartHeight = 170.0
  /// Top of the first chart, and the gap between the two, inside the panel.
  let firstTop = 50.0
  let gap = 90.0

  func panel(_ name: String, _ timeline: Timeline, top panelTop: Int) -> String {
    let samples = timeline.samples
    let plotWidth = Double(width) - left - right
    let span = max(samples.last?.elapsedSeconds ?? 1, 1e-9)
    func x(_ seconds: Double) -> Double { left + plotWidth * seconds / span }
    let verdict = timeline.flatness
    var svg = "<g>\n"
    svg += text(
      left, Double(panelTop) + 24,
      "\(name): memory and p99 over time · \(verdict.outcome.rawValue)", weight: "bold")

    let rssTop = Double(panelTop) + firstTop
    let latencyTop = rssTop + chartHeight + gap
    for top in [rssTop, latencyTop] {
      svg += bands(samples, verdict, top: top, x: x)
      svg += "<rect x=\"\(f(left))\" y=\"\(f(top))\" width=\"\(f(plotWidth))\" "
        + "height=\"\(f(chartHeight))\" fill=\"none\" stroke=\"#999\"/>\n"
      svg += timeAxis(span, top: top + chartHeight, x: x)
    }

    // RSS, linear from 0 so that a flat line looks flat.
    let highRSS = max(1, Double(samples.map(\.residentBytes).max() ?? 1) * 1.1)
    func yRSS(_ bytes: Double) -> Double { rssTop + chartHeight * (1 - bytes / highRSS) }
    for step in 0...4 {
      let value = highRSS * Double(step) / 4
      svg += gridLine(left, yRSS(value), left + plotWidth, yRSS(value))
      svg += text(left - 6, yRSS(value) + 4, DurationText.bytes(Int(value)), anchor: "end")
    }
    svg += polyline(
      samples.map { (x($0.elapsedSeconds), yRSS(Double($0.residentBytes))) }, color: "#1f77b4")
    svg += legend(0, top: rssTop, "RSS", color: "#1f77b4", dash: "")

    // p99 latencies, log scale over the decades they span.
    let values = samples.flatMap { [$0.queueWait.p99Nanoseconds, $0.reduce.p99Nanoseconds] }
      .filter { $0 > 0 }
    let low = floor(log10(Double(values.min() ?? 1)))
    let high = max(low + 1, ceil(log10(Double(values.max() ?? 10))))
    func yLatency(_ nanoseconds: UInt64) -> Double {
      let value = log10(max(1, Double(nanoseconds)))
      return latencyTop + chartHeight * (1 - (value - low) / (high - low))
    }
    for exponent in Int(low)...Int(high) {
      let nanoseconds = UInt64(pow(10, Double(exponent)))
      svg += gridLine(left, yLatency(nanoseconds), left + plotWidth, yLatency(nanoseconds))
      svg += text(
        left - 6, yLatency(nanoseconds) + 4, DurationText.nanoseconds(nanoseconds),
        anchor: "end")
    }
    let busy = samples.filter { $0.actions > 0 }
    svg += polyline(
      busy.map { (x($0.elapsedSeconds), yLatency($0.reduce.p99Nanoseconds)) }, color: "#d62728")
    svg += polyline(
      busy.map { (x($0.elapsedSeconds), yLatency($0.queueWait.p99Nanoseconds)) },
      color: "#ff7f0e", dash: " stroke-dasharray=\"5,3\"")
    svg += legend(0, top: latencyTop, "reduce p99", color: "#d62728", dash: "")
    svg += legend(
      1, top: latencyTop, "queue wait p99", color: "#ff7f0e", dash: " stroke-dasharray=\"5,3\"")
    let noteX = left + plotWidth + 14
    svg += text(noteX, latencyTop + chartHeight - 20, "grey: warm-up")
    svg += text(noteX, latencyTop + chartHeight - 4, "tinted: thirds compared")
    return svg + "</g>\n"
  }

  /// The warm-up in grey, the first and last thirds that the verdict compares tinted.
  private func bands(
    _ samples: [TimelineSample], _ verdict: FlatnessVerdict, top: Double,
    x: (Double) -> Double
  ) -> String {
    func start(_ index: Int) -> Double {
      index == 0 ? 0 : samples[index - 1].elapsedSeconds
    }
    func band(_ from: Int, _ to: Int, _ color: String) -> String {
      guard from < to, to <= samples.count else { return "" }
      let x0 = x(start(from))
      let x1 = x(samples[to - 1].elapsedSeconds)
      return "<rect x=\"\(f(x0))\" y=\"\(f(top))\" width=\"\(f(max(0, x1 - x0)))\" "
        + "height=\"\(f(chartHeight))\" fill=\"\(color)\"/>\n"
    }
    var svg = band(0, min(verdict.warmUpSamples, samples.count), "#eeeeee")
    if verdict.windowSamples > 0 {
      let warmUp = verdict.warmUpSamples
      svg += band(warmUp, warmUp + verdict.windowSamples, "#e8f0fa")
      svg += band(samples.count - verdict.windowSamples, samples.count, "#e8f0fa")
    }
    return svg
  }

  private func timeAxis(_ span: Double, top: Double, x: (Double) -> Double) -> String {
    var svg = ""
    let step = Self.niceStep(span / 6)
    var seconds = 0.0
    while seconds <= span + 1e-9 {
      svg += text(x(seconds), top + 16, String(format: "%gs", seconds), anchor: "middle")
      seconds += step
    }
    return svg
  }

  /// 1, 2 or 5 times a power of ten, at least `raw`.
  static func niceStep(_ raw: Double) -> Double {
    guard raw > 0 else { return 1 }
    let power = pow(10, floor(log10(raw)))
    for multiple in [1.0, 2, 5, 10] where multiple * power >= raw { return multiple * power }
    return 10 * power
  }

  private func polyline(
    _ points: [(Double, Double)], color: String, dash: String = ""
  ) -> String {
    guard !points.isEmpty else { return "" }
    let text = points.map { "\(f($0.0)),\(f($0.1))" }.joined(separator: " ")
    return "<polyline fill=\"none\" stroke=\"\(color)\" stroke-width=\"1.5\"\(dash) "
      + "points=\"\(text)\"/>\n"
  }

  private func legend(_ row: Int, top: Double, _ label: String, color: String, dash: String)
    -> String
  {
    let legendX = Double(width) - right + 14
    let legendY = top + 14 + Double(row) * 16
    return "<line x1=\"\(f(legendX))\" y1=\"\(f(legendY - 4))\" x2=\"\(f(legendX + 18))\" "
      + "y2=\"\(f(legendY - 4))\" stroke=\"\(color)\" stroke-width=\"2\"\(dash)/>\n"
      + text(legendX + 24, legendY, label)
  }

  private func gridLine(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double) -> String {
    line(x1, y1, x2, y2, stroke: "#ddd")
  }
}

import Foundation

extension Report {
  /// An SVG plot per workload of the latency percentile distribution: a log-scaled percentile
  /// axis (0, 90, 99, 99.9, 99.99, 99.999) across, log-scaled latency up, one color per action
  /// case, reduce time solid and queue wait dashed. A workload with a ``Timeline`` (the soak)
  /// gets a second panel: RSS and p99 latencies over time.
  func percentilePlotSVG() -> String {
    let plots = workloads.filter { !$0.actionCases.isEmpty }
    let timelines = workloads.compactMap { workload in
      workload.timeline.map { (workload.name, $0) }
    }
    let layout = PlotLayout()
    let timelinePlot = TimelinePlot()
    let height = max(
      1, plots.count * layout.panelHeight + timelines.count * timelinePlot.panelHeight)
    var svg = """
      <svg xmlns="http://www.w3.org/2000/svg" width="\(layout.width)" height="\(height)" \
      viewBox="0 0 \(layout.width) \(height)" font-family="sans-serif" font-size="11">
      <rect width="100%" height="100%" fill="white"/>

      """
    if plots.isEmpty && timelines.isEmpty {
      svg += "<text x=\"20\" y=\"30\">No latency figures in this report.</text>\n"
    }
    var top = 0
    for (name, timeline) in timelines {
      svg += timelinePlot.panel(name, timeline, top: top)
      top += timelinePlot.panelHeight
    }
    for workload in plots {
      svg += layout.panel(workload, top: top)
      top += layout.panelHeight
    }
    return svg + "</svg>\n"
  }
}

/// Geometry and drawing of one SVG panel.
struct PlotLayout: SVGMarkup {
  let width = 900
  let panelHeight = 420
  let left = 70.0
  let right = 230.0
  let top = 40.0
  let bottom = 50.0
  /// Decades of `1 / (1 - p)` on the percentile axis: 0 … 5 is 0% … 99.999%.
  let decades = 5.0

  static let colors = [
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
    "#bcbd22", "#17becf",
  ]

  func panel(_ workload: WorkloadReport, top panelTop: Int) -> String {
    let plotWidth = Double(width) - left - right
    let plotHeight = Double(panelHeight) - top - bottom
    let originY = Double(panelTop) + top
    let values = workload.actionCases.flatMap { row in
      (row.reduce.distribution + row.queueWait.distribution).map(\.nanoseconds)
    }.filter { $0 > 0 }
    let low = floor(log10(Double(values.min() ?? 1)))
    let high = max(low + 1, ceil(log10(Double(values.max() ?? 10))))
    func x(_ percentile: Double) -> Double {
      let tail = max(1 - percentile / 100, pow(10, -decades))
      return left + plotWidth * min(decades, -log10(tail)) / decades
    }
    // In Double, not UInt64: the top grid line of a plot whose largest value exceeds 1e19 ns
    // (a damaged or hostile report; UInt64.max is 1.8e19) is 1e20, which no UInt64 holds.
    func y(_ nanoseconds: Double) -> Double {
      // Clamped: a 0 ns point (below the axis's lowest decade) stays on the plot's edge.
      let value = min(high, max(low, log10(max(1, nanoseconds))))
      return originY + plotHeight * (1 - (value - low) / (high - low))
    }
    var svg = "<g>\n"
    svg += text(left, originY - 14, "\(workload.name): latency by percentile", weight: "bold")
    svg += "<rect x=\"\(f(left))\" y=\"\(f(originY))\" width=\"\(f(plotWidth))\" "
      + "height=\"\(f(plotHeight))\" fill=\"none\" stroke=\"#999\"/>\n"
    for (decade, label) in ["0%", "90%", "99%", "99.9%", "99.99%", "99.999%"].enumerated() {
      let gx = left + plotWidth * Double(decade) / decades
      svg += line(gx, originY, gx, originY + plotHeight)
      svg += text(gx, originY + plotHeight + 16, label, anchor: "middle")
    }
    for exponent in Int(low)...Int(high) {
      let gy = y(pow(10, Double(exponent)))
      svg += line(left, gy, left + plotWidth, gy)
      svg += text(left - 6, gy + 4, DurationText.nanoseconds(pow(10, Double(exponent))),
        anchor: "end")
    }
    svg += text(left + plotWidth / 2, originY + plotHeight + 36, "percentile", anchor: "middle")
    for (index, row) in workload.actionCases.enumerated() {
      let color = Self.colors[index % Self.colors.count]
      for (summary, dash) in [(row.reduce, ""), (row.queueWait, " stroke-dasharray=\"5,3\"")] {
        let points = summary.distribution.filter { $0.percentile < 100 }
          .map { "\(f(x($0.percentile))),\(f(y(Double($0.nanoseconds))))" }
        guard !points.isEmpty else { continue }
        svg += "<polyline fill=\"none\" stroke=\"\(color)\" stroke-width=\"1.5\"\(dash) "
          + "points=\"\(points.joined(separator: " "))\"/>\n"
      }
      let legendY = originY + 14 + Double(index) * 16
      let legendX = left + plotWidth + 14
      svg += "<line x1=\"\(f(legendX))\" y1=\"\(f(legendY - 4))\" x2=\"\(f(legendX + 18))\" "
        + "y2=\"\(f(legendY - 4))\" stroke=\"\(color)\" stroke-width=\"2\"/>\n"
      svg += text(legendX + 24, legendY, row.label)
    }
    let noteY = originY + plotHeight - 4
    svg += text(left + plotWidth + 14, noteY, "solid: reduce · dashed: queue wait")
    return svg + "</g>\n"
  }

  private func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double) -> String {
    line(x1, y1, x2, y2, stroke: "#eee")
  }
}

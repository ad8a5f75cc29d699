import Foundation

/// The SVG elements Spool's plots are drawn with, shared by the percentile plot
/// (``PlotLayout``) and the timeline plot (``TimelinePlot``).
///
/// ```swift
/// struct Axis: SVGMarkup {
///   func draw() -> String { line(0, 0, 100, 0, stroke: "#ddd") + text(0, 12, "0 ns") }
/// }
/// ```
protocol SVGMarkup {}

extension SVGMarkup {
  /// A one-pixel line from (`x1`, `y1`) to (`x2`, `y2`).
  func line(
    _ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, stroke: String
  ) -> String {
    "<line x1=\"\(f(x1))\" y1=\"\(f(y1))\" x2=\"\(f(x2))\" y2=\"\(f(y2))\" stroke=\"\(stroke)\"/>\n"
  }

  /// `content`, escaped, at (`x`, `y`).
  func text(
    _ x: Double, _ y: Double, _ content: String, anchor: String = "start",
    weight: String = "normal"
  ) -> String {
    "<text x=\"\(f(x))\" y=\"\(f(y))\" text-anchor=\"\(anchor)\" font-weight=\"\(weight)\">"
      + escape(content) + "</text>\n"
  }

  /// A coordinate with one decimal.
  func f(_ value: Double) -> String { String(format: "%.1f", value) }

  /// `text` with the characters XML gives a meaning to escaped.
  func escape(_ text: String) -> String {
    text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
      .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
  }
}

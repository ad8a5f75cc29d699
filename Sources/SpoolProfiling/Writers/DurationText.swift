import Foundation

/// Short, fixed-precision text for nanoseconds, rates and sizes, as the table shows them.
enum DurationText {
  /// `38ns`, `1.25µs`, `14.0ms`, `2.50s`.
  static func nanoseconds(_ value: Double) -> String {
    switch value {
    case ..<1_000: String(format: "%.0fns", value)
    case ..<1_000_000: String(format: "%.2fµs", value / 1e3)
    case ..<1_000_000_000: String(format: "%.2fms", value / 1e6)
    default: String(format: "%.2fs", value / 1e9)
    }
  }

  static func nanoseconds(_ value: UInt64) -> String { nanoseconds(Double(value)) }

  /// `12.3M/s`, `950k/s`, `12/s`.
  static func rate(_ perSecond: Double) -> String {
    switch perSecond {
    case 1e9...: String(format: "%.2fG/s", perSecond / 1e9)
    case 1e6...: String(format: "%.2fM/s", perSecond / 1e6)
    case 1e3...: String(format: "%.1fk/s", perSecond / 1e3)
    default: String(format: "%.1f/s", perSecond)
    }
  }

  /// `24.5 MiB`.
  static func bytes(_ value: Int) -> String {
    String(format: "%.1f MiB", Double(value) / 1_048_576)
  }
}

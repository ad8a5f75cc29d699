import SpoolCore

/// The throughput of one way of doing a workload's work, measured once, after its setup.
package struct Measurement: Sendable {
  /// `spool`, or a baseline's name: `plain-actor`.
  package var name: String
  /// Units of work done in the measured part (actions, round trips, reads).
  package var actions: Int
  /// Wall-clock duration of the measured part.
  package var seconds: Double

  /// A measurement of `actions` units in `seconds`.
  package init(name: String, actions: Int, seconds: Double) {
    self.name = name
    self.actions = actions
    self.seconds = seconds
  }

  /// Units per second; 0 for a zero duration.
  package var throughputPerSecond: Double {
    seconds > 0 ? Double(actions) / seconds : 0
  }

  /// Times `body`. Setup belongs before the call, checks after it.
  package static func time(
    _ name: String, actions: Int, _ body: () async throws -> Void
  ) async rethrows -> Measurement {
    let start = SpoolTime.now()
    try await body()
    let end = SpoolTime.now()
    return Measurement(name: name, actions: actions, seconds: Double(end - start) / 1e9)
  }
}

import Synchronization

/// How far the running workload has got: the phase's label and its completed / total units.
///
/// Workloads advance it once per chunk of work (thousands of actions), never per action, so
/// that a progress bar costs nothing measurable; a renderer reads ``snapshot`` on a timer.
///
/// ```swift
/// let progress = BenchProgress()
/// progress.begin("counter · spool", total: 1_000)
/// progress.advance(by: 500)
/// print(progress.snapshot.fraction)  // 0.5
/// ```
public final class BenchProgress: Sendable {
  /// A reading of the progress.
  public struct Snapshot: Sendable, Equatable {
    /// The phase, `counter · plain-actor`.
    public var label: String
    /// Units done in this phase.
    public var completed: Int
    /// Units this phase has; 0 when unknown.
    public var total: Int
    /// Phases started so far in the whole run, this one included.
    public var phase: Int
    /// `completed / total`, clamped to 0 … 1.
    public var fraction: Double {
      total > 0 ? min(1, max(0, Double(completed) / Double(total))) : 0
    }
  }

  // Written by the workload's tasks, read by the renderer: an atomic, so that advancing
  // takes no lock on the producers' path.
  private let completed = Atomic<Int>(0)
  // Changed between phases only; protected by its mutex.
  private let phase = Mutex<(label: String, total: Int, number: Int)>(("", 0, 0))

  /// Creates a progress at phase 0.
  ///
  /// ```swift
  /// let progress = BenchProgress()
  /// ```
  public init() {}

  /// Starts a phase of `total` units.
  ///
  /// ```swift
  /// progress.begin("effects · spool", total: 200_000)
  /// ```
  public func begin(_ label: String, total: Int) {
    phase.withLock { $0 = (label, total, $0.number + 1) }
    completed.store(0, ordering: .relaxed)
  }

  /// Counts `units` more as done.
  ///
  /// ```swift
  /// progress.advance(by: 4_096)
  /// ```
  public func advance(by units: Int) {
    completed.add(units, ordering: .relaxed)
  }

  /// The current phase and how much of it is done.
  ///
  /// ```swift
  /// let now = progress.snapshot
  /// print(now.label, Int(now.fraction * 100), "%")
  /// ```
  public var snapshot: Snapshot {
    let (label, total, number) = phase.withLock { $0 }
    return Snapshot(
      label: label, completed: completed.load(ordering: .relaxed), total: total, phase: number)
  }
}

import SpoolCore
import Synchronization

/// What a driver or a baseline gets for one measurement: the volume asked for, the run's
/// options, the progress to advance, and the clock to start after its setup.
///
/// The clock starts when the driver (or baseline) is called; one that has setup to do first
/// (a file to read, a connection to open, a recorded stream to load) calls
/// ``startMeasurement()`` when it is done, as package-benchmark's `startMeasurement()`. The
/// clock stops after the store's `finish()` (for a driver) or when the baseline returns.
///
/// ```swift
/// driver: .custom { store, context in
///   let lines = try loadRecordedActions()  // setup: not measured
///   context.startMeasurement()
///   for line in lines { store.enqueue(line.action) }
///   context.advance(by: lines.count)
///   return lines.count
/// }
/// ```
public final class WorkloadContext: Sendable {
  /// The volume asked for: `--actions`, or the workload's ``Workload/defaultActions``.
  public let actions: Int
  /// The options of the run (`--producers`, `--profile`, `--rounds`, …).
  public let options: WorkloadOptions
  /// The measurement's label, `checkout · spool`, or `checkout · round 2/3 · plain-actor`;
  /// the harness names failed checks with it.
  public let label: String
  let progress: BenchProgress
  // Written by the driver's task, read by the harness after the driver returned: a mutex, so
  // that a driver may start the clock from any task it runs.
  private let start: Mutex<UInt64>

  package init(actions: Int, options: WorkloadOptions, label: String, progress: BenchProgress) {
    self.actions = actions
    self.options = options
    self.label = label
    self.progress = progress
    self.start = Mutex(SpoolTime.now())
  }

  /// Restarts the clock: what came before (setup) is not measured.
  ///
  /// ```swift
  /// let stream = try loadStream()
  /// context.startMeasurement()
  /// ```
  public func startMeasurement() {
    let now = SpoolTime.now()
    start.withLock { $0 = now }
  }

  /// Counts `units` more as done on the progress bar. Call it once per chunk of work
  /// (thousands of actions), not per action: it is an atomic add.
  ///
  /// ```swift
  /// context.advance(by: 4_096)
  /// ```
  public func advance(by units: Int) {
    progress.advance(by: units)
  }

  /// Nanoseconds since the clock started.
  package func elapsedNanoseconds() -> UInt64 {
    let now = SpoolTime.now()
    return now - start.withLock { $0 }
  }
}

/// The same work done another way, measured in the same run as Spool, so that the report
/// carries a ratio (`spool/baseline` in the summary; above 1, Spool is faster).
///
/// A baseline is measured after Spool in each round, with the same ``WorkloadContext``
/// (``WorkloadContext/actions`` is the volume to do). Its clock starts when it is called, or
/// at ``WorkloadContext/startMeasurement()``, and stops when it returns; it throws a
/// ``WorkloadCheckError`` when its own result is wrong. Ratios are only meaningful within one
/// run: compare them, not absolute figures, across runs.
///
/// ```swift
/// baselines: [
///   WorkloadBaseline("locked-class") { context in
///     let cart = LockedCart()
///     for index in 0..<context.actions { cart.add(item: index) }
///     guard cart.count == context.actions else { throw WorkloadCheckError("lost items") }
///   }
/// ]
/// ```
public struct WorkloadBaseline: Sendable {
  /// The baseline's name in the report, `plain-actor`.
  public let name: String
  package let body: @Sendable (_ context: WorkloadContext) async throws -> Void

  /// A baseline called `name` that does `context.actions` units of the workload's work.
  ///
  /// - Parameters:
  ///   - name: Its name in the report and the summary, `locked-class`.
  ///   - body: Does the work; throws when its result is wrong.
  ///
  /// ```swift
  /// WorkloadBaseline("raw-loop") { context in
  ///   var state = Counter.State()
  ///   for _ in 0..<context.actions { _ = Counter().reduce(into: &state, action: .tap) }
  /// }
  /// ```
  public init(
    _ name: String, _ body: @escaping @Sendable (_ context: WorkloadContext) async throws -> Void
  ) {
    self.name = name
    self.body = body
  }
}

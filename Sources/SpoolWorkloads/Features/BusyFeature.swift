import SpoolCore
import Synchronization

/// A reducer that does a fixed amount of CPU work per action (a chain of dependent
/// multiply-adds the optimizer cannot shorten): the stand-in for a real feature's reduce, on
/// which the instrumentation's share of the time is measured.
///
/// ```swift
/// let iterations = BusyFeature.iterations(forNanoseconds: 1_000)
/// let store = Store(initialState: BusyFeature.State()) { BusyFeature(iterations: iterations) }
/// store.enqueue(.work)
/// ```
public struct BusyFeature: Reducer, Sendable {
  /// The number of actions reduced, and the last value of the work's chain.
  public struct State: Equatable, Sendable {
    public var count = 0
    public var checksum: UInt64 = 0
    /// Creates the state.
    public init() {}
  }

  /// The one action: do the work once.
  public enum Action: Equatable, Sendable {
    case work
  }

  /// Multiply-adds per action.
  public let iterations: Int

  /// Creates the reducer; see ``iterations(forNanoseconds:)``.
  public init(iterations: Int) {
    self.iterations = iterations
  }

  /// Reduces one action; the type's documentation says what it does.
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .work:
      state.checksum = Self.chain(from: state.checksum, iterations: iterations)
      state.count &+= 1
      return .none
    }
  }

  /// `iterations` steps of a linear congruential generator: each step needs the previous one.
  @inline(never)
  static func chain(from seed: UInt64, iterations: Int) -> UInt64 {
    var value = seed
    for _ in 0..<iterations {
      value = value &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
    }
    return value
  }

  /// How many iterations take about `nanoseconds` on this machine now: the best of a few timed
  /// runs of the chain (the fastest is the least disturbed by other work).
  public static func iterations(forNanoseconds nanoseconds: Int) -> Int {
    let sample = 1_000_000
    var best = UInt64.max
    var sink: UInt64 = 0
    for _ in 0..<5 {
      let start = SpoolTime.now()
      sink = sink &+ chain(from: sink, iterations: sample)
      best = min(best, SpoolTime.now() - start)
    }
    // Stored somewhere observable, so that the timed work is not dead code.
    calibrationSink.store(sink, ordering: .relaxed)
    let perIteration = Double(max(best, 1)) / Double(sample)
    return max(1, Int(Double(nanoseconds) / perIteration))
  }

  private static let calibrationSink = Atomic<UInt64>(0)
}

/// Receives the timing of a store's actions and effects.
///
/// Spool's stores call an instrumentation, when one is given, at a handful of points: once per
/// reduced action (with the time it was enqueued, the time its reduce started and the time it
/// ended) and once at the start and the end of every effect task the store owns. `SpoolProfiling`
/// implements this protocol with a latency recorder; a store created without an instrumentation
/// pays one branch per action for the feature.
///
/// All timestamps are nanoseconds on `CLOCK_MONOTONIC`, as returned by ``SpoolTime/now()``.
///
/// - ``actionReduced(_:enqueuedAt:startedAt:endedAt:)`` is called by whichever thread holds the
///   store (its executor, or the thread of a producer that found it idle), one action at a
///   time; keep it cheap (no allocation, no `String(describing:)`).
/// - ``effectStarted(by:at:)`` is called where the effect starts: usually by the thread that
///   holds the store, but a run that shares a task with runs before it starts wherever that
///   task is. ``effectEnded(by:startedAt:endedAt:outcome:)`` is called from the effect's own
///   task, on any thread. So implementations synchronize what they record in both.
///
/// ```swift
/// final class CountingInstrumentation: StoreInstrumentation, Sendable {
///   let reduced = Atomic<Int>(0)
///   func actionReduced(
///     _ action: Counter.Action, enqueuedAt: UInt64, startedAt: UInt64, endedAt: UInt64
///   ) {
///     reduced.add(1, ordering: .relaxed)
///   }
///   func effectStarted(by action: Counter.Action, at time: UInt64) {}
///   func effectEnded(
///     by action: Counter.Action, startedAt: UInt64, endedAt: UInt64, outcome: EffectOutcome
///   ) {}
/// }
///
/// let store = Store(initialState: Counter.State(), instrumentation: CountingInstrumentation()) {
///   Counter()
/// }
/// ```
public protocol StoreInstrumentation<Action>: AnyObject, Sendable {
  /// The action type of the stores this instrumentation observes.
  associatedtype Action: Sendable

  /// Called once per action, right after its reduce returned.
  ///
  /// - Parameters:
  ///   - action: The action that was reduced.
  ///   - enqueuedAt: When the action entered the store (`send` or `enqueue` was called). For an
  ///     action that an effect emitted synchronously, this is when its parent's reduce ended.
  ///   - startedAt: When its reduce started.
  ///   - endedAt: When its reduce ended.
  func actionReduced(_ action: Action, enqueuedAt: UInt64, startedAt: UInt64, endedAt: UInt64)

  /// Called when the store starts an effect task on behalf of `action`.
  func effectStarted(by action: Action, at time: UInt64)

  /// Called when an effect task started on behalf of `action` ends, from the effect's task.
  func effectEnded(by action: Action, startedAt: UInt64, endedAt: UInt64, outcome: EffectOutcome)

  /// Whether ``actionReduced(_:enqueuedAt:startedAt:endedAt:)`` needs the start and the end of
  /// each reduce; `true` unless an implementation says otherwise.
  ///
  /// An instrumentation that records only when actions arrived (an action journal) returns
  /// `false`, and the store then reads the clock once per action (its enqueue time) instead of
  /// up to three times: it passes that time as `startedAt` and `endedAt` too. A clock read
  /// costs about as much as a small reducer's whole action (`spool bench instrumentation`).
  /// Read once, when the store is created.
  var timesReduces: Bool { get }

  /// How many of the actions the store times: ``TimingSampling/everyAction`` unless an
  /// implementation says otherwise.
  ///
  /// With ``TimingSampling/oneIn(_:)``, the store reads the clock for one action in N and
  /// calls ``actionReduced(_:enqueuedAt:startedAt:endedAt:)`` for it; for the others it reads
  /// no clock and calls ``actionCounted(_:)``. Ignored (every action timed) when
  /// ``timesReduces`` is `false`. Read once, when the store is created.
  ///
  /// ```swift
  /// final class SampledCounting: StoreInstrumentation, Sendable {
  ///   let timed = Atomic<Int>(0)
  ///   let counted = Atomic<Int>(0)
  ///   var timingSampling: TimingSampling { .oneIn(64) }
  ///   func actionReduced(
  ///     _ action: Counter.Action, enqueuedAt: UInt64, startedAt: UInt64, endedAt: UInt64
  ///   ) {
  ///     timed.add(1, ordering: .relaxed)
  ///   }
  ///   func actionCounted(_ action: Counter.Action) { counted.add(1, ordering: .relaxed) }
  ///   func effectStarted(by action: Counter.Action, at time: UInt64) {}
  ///   func effectEnded(
  ///     by action: Counter.Action, startedAt: UInt64, endedAt: UInt64, outcome: EffectOutcome
  ///   ) {}
  /// }
  /// ```
  var timingSampling: TimingSampling { get }

  /// Called once per action that the store reduced without timing it, right after its reduce
  /// returned; only when ``timingSampling`` samples.
  ///
  /// Called where ``actionReduced(_:enqueuedAt:startedAt:endedAt:)`` is, under the same rules:
  /// keep it cheap.
  ///
  /// - Parameter action: The action that was reduced.
  func actionCounted(_ action: Action)

  /// What Spool's stores call for a timed action: the action passed by address to what,
  /// by default, is ``actionReduced(_:enqueuedAt:startedAt:endedAt:)``.
  ///
  /// Implement it only to read the action in place: the default passes a copy of the action to
  /// ``actionReduced(_:enqueuedAt:startedAt:endedAt:)``, which is all an instrumentation needs.
  /// A store's code is compiled for its concrete action type and the instrumentation's is not,
  /// so an implementation that needs the action's bytes (to read its case) gets them here
  /// without a generic copy. `action` is valid only during the call.
  ///
  /// ```swift
  /// func _actionReduced(
  ///   at action: UnsafePointer<Counter.Action>,
  ///   enqueuedAt: UInt64, startedAt: UInt64, endedAt: UInt64
  /// ) {
  ///   reduced.add(1, ordering: .relaxed)
  /// }
  /// ```
  func _actionReduced(
    at action: UnsafePointer<Action>, enqueuedAt: UInt64, startedAt: UInt64, endedAt: UInt64)

  /// What Spool's stores call for an action they count without timing it: the action passed
  /// by address to what, by default, is ``actionCounted(_:)``. Implement it only to read the
  /// action in place, as ``_actionReduced(at:enqueuedAt:startedAt:endedAt:)``.
  ///
  /// ```swift
  /// func _actionCounted(at action: UnsafePointer<Counter.Action>) {
  ///   counted.add(1, ordering: .relaxed)
  /// }
  /// ```
  func _actionCounted(at action: UnsafePointer<Action>)
}

extension StoreInstrumentation {
  /// The default: the store times every reduce.
  public var timesReduces: Bool { true }

  /// The default: the store times every action.
  public var timingSampling: TimingSampling { .everyAction }

  /// The default: nothing (a store calls it only for an instrumentation that samples).
  public func actionCounted(_ action: Action) {}

  /// The default: ``actionReduced(_:enqueuedAt:startedAt:endedAt:)`` with a copy of the action.
  public func _actionReduced(
    at action: UnsafePointer<Action>, enqueuedAt: UInt64, startedAt: UInt64, endedAt: UInt64
  ) {
    actionReduced(action.pointee, enqueuedAt: enqueuedAt, startedAt: startedAt, endedAt: endedAt)
  }

  /// The default: ``actionCounted(_:)`` with a copy of the action.
  public func _actionCounted(at action: UnsafePointer<Action>) {
    actionCounted(action.pointee)
  }
}

/// An instrumentation of Spool's own whose entries
/// ``StoreInstrumentation/_actionReduced(at:enqueuedAt:startedAt:endedAt:)`` and
/// ``StoreInstrumentation/_actionCounted(at:)`` read the action in place. A store calls those
/// entries only for these: for any other, the default entries would copy the action in generic
/// code before calling ``StoreInstrumentation/actionReduced(_:enqueuedAt:startedAt:endedAt:)``
/// or ``StoreInstrumentation/actionCounted(_:)``, a cost the direct calls do not have.
package protocol InPlaceActionTiming: AnyObject {}

extension StoreInstrumentation {
  /// How a store reports a timed action: with `inPlace` (the instrumentation is an
  /// ``InPlaceActionTiming``), the action's address, taken here in code compiled for the
  /// concrete action type; otherwise the action itself.
  @inlinable @inline(__always)
  package func recordReduced(
    _ action: borrowing Action, inPlace: Bool, enqueuedAt: UInt64, startedAt: UInt64,
    endedAt: UInt64
  ) {
    if inPlace {
      withUnsafePointer(to: action) {
        _actionReduced(at: $0, enqueuedAt: enqueuedAt, startedAt: startedAt, endedAt: endedAt)
      }
    } else {
      actionReduced(copy action, enqueuedAt: enqueuedAt, startedAt: startedAt, endedAt: endedAt)
    }
  }

  /// How a store reports an action it counts without timing it, as
  /// ``recordReduced(_:inPlace:enqueuedAt:startedAt:endedAt:)`` reports a timed one.
  @inlinable @inline(__always)
  package func recordCounted(_ action: borrowing Action, inPlace: Bool) {
    if inPlace {
      withUnsafePointer(to: action) { _actionCounted(at: $0) }
    } else {
      actionCounted(copy action)
    }
  }
}

/// How an effect task ended.
public enum EffectOutcome: String, Sendable, Hashable, Codable, CaseIterable {
  /// The effect ran to its end.
  case finished
  /// The effect was cancelled (by ID, by `cancelInFlight`, by its ``StoreTask`` or by shutdown).
  case cancelled
  /// The effect threw an error that was not a cancellation.
  case failed
}

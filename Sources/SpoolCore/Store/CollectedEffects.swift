import ConcurrencyExtras

/// The effects a drain pass collects to start together at its end, and the rule of when each
/// one starts.
///
/// A pass (a drain batch, or a producer reducing on its own thread) does not give every effect
/// its reduce returns a task at once: plain runs wait in ``runs`` to start together in one task
/// (``EffectRunner`` says why), and `.run(…).cancellable(id:cancelInFlight:)` effects are
/// reserved in the registry and wait in ``reserved``, so that one replaced before the pass ends
/// never costs a task. The rule, which the methods below hold and `CollectedEffectsTests`
/// checks:
///
/// - ``route(_:forTask:)`` says what is collected and what starts now;
/// - at most ``batchLimit`` effects of each kind wait: the one that reaches it starts them;
/// - the collected runs start before any other effect starts or is cancelled
///   (``Route/startsCollectedRunsFirst``), so that effects start and are cancelled in the
///   order their reduces returned them (a collected run may register work under an ID that a
///   later effect cancels or replaces);
/// - at the pass's end, the reserved effects start before the runs (``startAll(reserved:runs:)``):
///   their tasks are scheduled, while the runs run on this thread until they suspend;
/// - when the store shuts down, they are dropped (``drop(givingBackTo:)``), each reserved
///   token given back to the registry so that `finish()` does not wait for it.
///
/// Owned by `RootCore` and protected by its consumer lock: only the lock's holder touches it.
@usableFromInline
struct CollectedEffects<Action: Sendable> {
  /// How many effects of one kind wait before they start: a collected effect waits at most
  /// this many reduces.
  @inlinable static var batchLimit: Int { 64 }

  /// What a pass does with an effect a reduce returned (``route(_:forTask:)``).
  ///
  /// No case carries a payload: the caller reads what it needs from the effect's box where
  /// it uses it (``cancellableRun(_:)``). A payload (an `AnyHashableSendable`, a box) made
  /// every `Route` a value to copy and destroy through outlined code, on every effect; one
  /// of `TaskPriority?`, whose layout is known only at run time, would cost a metadata lookup
  /// wherever a `Route` is created.
  @usableFromInline
  enum Route {
    /// A plain run (no priority of its own): collected in ``runs``.
    case collectRun
    /// `.run(…).cancellable(id:cancelInFlight:)` from a pass: reserved under its ID and
    /// collected in ``reserved``.
    case collectReserved
    /// A run with a priority, or one whose task the caller wants back: a task of its own now.
    case startRun
    /// `.run(…).cancellable(id:cancelInFlight:)` whose task the caller wants back: a task
    /// registered under its ID now.
    case startCancellable
    /// Anything else: the effect planner (`EffectPlan`), now.
    case plan

    /// Whether the collected runs start before this effect is carried out: for everything but
    /// a run that joins them.
    @inlinable
    var startsCollectedRunsFirst: Bool {
      if case .collectRun = self { return false }
      return true
    }
  }

  /// An effect in ``reserved``: its registration token, its ID, its run, and the action whose
  /// reduce returned it (for instrumentation).
  @usableFromInline
  struct Reserved {
    @usableFromInline let token: Int
    @usableFromInline let id: AnyHashableSendable
    @usableFromInline let box: Effect<Action>.Box
    @usableFromInline let origin: Action

    @inlinable
    init(token: Int, id: AnyHashableSendable, box: Effect<Action>.Box, origin: Action) {
      self.token = token
      self.id = id
      self.box = box
      self.origin = origin
    }
  }

  /// The runs waiting to start, `nil` when none is.
  @usableFromInline var runs: EffectBatch<Action>?

  /// The reserved effects waiting for their tasks, in the order their reduces returned them.
  @usableFromInline var reserved: [Reserved] = []

  @inlinable
  init() {}

  /// Whether nothing waits to start.
  @inlinable
  var isEmpty: Bool { runs == nil && reserved.isEmpty }

  /// Whether runs wait to start.
  @inlinable
  var hasRuns: Bool { runs != nil }

  /// What a pass does with the effect whose box is `box`: collect it, or carry it out now.
  /// `forTask` when the caller wants the effect's tasks back (`send`'s ``StoreTask``), which
  /// collected effects have none of yet.
  @inlinable @inline(__always)
  static func route(_ box: Effect<Action>.Box, forTask: Bool) -> Route {
    if box.isRun {
      return !forTask && box.runPriority == nil ? .collectRun : .startRun
    }
    if case let .cancellable(_, _, inner) = box.operation, let run = inner.box, run.isRun {
      return forTask ? .startCancellable : .collectReserved
    }
    return .plan
  }

  /// The ID, `cancelInFlight` and run of the effect whose box is `box`, which
  /// ``route(_:forTask:)`` routed to ``Route/collectReserved`` or ``Route/startCancellable``:
  /// `.run(…).cancellable(id:cancelInFlight:)`.
  @inlinable @inline(__always)
  static func cancellableRun(
    _ box: Effect<Action>.Box
  ) -> (id: AnyHashableSendable, cancelInFlight: Bool, run: Effect<Action>.Box) {
    guard case let .cancellable(id, cancelInFlight, inner) = box.operation,
      let run = inner.box
    else {
      preconditionFailure(
        "Internal inconsistency: a cancellable run's box holds \(box.operation)")
    }
    return (id, cancelInFlight, run)
  }

  /// Collects a run that the reduce of `origin` returned (kept only if `keepsOrigins`, for
  /// instrumentation). Returns `true` when the runs reached ``batchLimit``: the caller starts
  /// them now (``takeRuns()``).
  @inlinable
  mutating func collect(
    run box: Effect<Action>.Box, origin: @autoclosure () -> Action, keepsOrigins: Bool
  ) -> Bool {
    if runs == nil { runs = EffectBatch(capacity: Self.batchLimit, keepsOrigins: keepsOrigins) }
    return runs.unsafelyUnwrapped.append(box, origin: origin()) == Self.batchLimit
  }

  /// Collects an effect reserved in the registry. Returns `true` when the reserved effects
  /// reached ``batchLimit``: the caller starts them now (``startReserved(_:)``).
  @inlinable
  mutating func collect(reserved effect: Reserved) -> Bool {
    reserved.append(effect)
    return reserved.count == Self.batchLimit
  }

  /// The collected runs, to start now; none are collected afterwards.
  @inlinable
  mutating func takeRuns() -> EffectBatch<Action>? {
    let taken = runs
    runs = nil
    return taken
  }

  /// Hands each reserved effect to `start`, in order, then forgets them (keeping the array's
  /// storage for the next pass). `start` must not touch this value.
  @inlinable
  mutating func startReserved(_ start: (Reserved) -> Void) {
    for effect in reserved { start(effect) }
    reserved.removeAll(keepingCapacity: true)
  }

  /// The end of a pass: hands the reserved effects to `reserved`, in order, then the runs to
  /// `runs`; nothing is collected afterwards. The closures must not touch this value.
  @inlinable
  mutating func startAll(
    reserved: (Reserved) -> Void, runs: (EffectBatch<Action>) -> Void
  ) {
    if !self.reserved.isEmpty { startReserved(reserved) }
    if let batch = takeRuns() { runs(batch) }
  }

  /// Forgets everything collected, when the store has shut down: the effects count as
  /// cancelled before they started. Each reserved token goes back to `registry` (shut down,
  /// its `shouldStart` forgets the slot), so that `finish()` does not wait for it.
  mutating func drop(givingBackTo registry: EffectRegistry) {
    runs = nil
    for effect in reserved { _ = registry.shouldStart(effect.token) }
    reserved.removeAll()
  }
}

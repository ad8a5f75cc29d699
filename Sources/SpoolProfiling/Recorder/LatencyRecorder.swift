import SpoolCore
import Synchronization

/// Records the latency of a store's actions and effects into per-case HdrHistograms.
///
/// Give it to a store as its instrumentation. Per action case (the enum case, nested cases
/// flattened as `child(.row(.toggle))`) it keeps a histogram of queue wait (enqueue to start of
/// reduce) and one of reduce time; per case that starts effects, the effects' outcome counts and
/// a histogram of their lifetime; the total action count; and the most recent
/// `traceCapacity` actions for the trace view. Memory depends on the number of distinct cases
/// (about 75 KB each per recording thread), on `traceCapacity` and, when it samples, on the
/// number of live stores (8 bytes per top-level case and a small object each), never on the
/// number of actions.
///
/// Budget per timed action: no lock (each thread records into cells of its own), a case lookup
/// that reads the enum tag through the value witness table and never formats a string, two
/// histogram records, one ring write; no allocation once a case has been seen. Sampled, a
/// store counts the actions it does not time in cells of its own, without calling the
/// recorder (`spool bench instrumentation` shows what each mode costs a store).
///
/// One recorder may observe several stores of the same action type; their figures add up.
///
/// To leave it on in production, where two clock reads per action would cost more than a
/// cheap reducer, have it time one action in N (`TimingSampling.oneIn(_:)`): every action is
/// still counted, the latencies come from the timed ones, and the report says so
/// (``WorkloadReport/timingSampleInterval``).
///
/// ```swift
/// let recorder = LatencyRecorder<Counter.Action>()
/// let store = Store(initialState: Counter.State(), instrumentation: recorder) {
///   Counter()
/// }
/// // … drive the store …
/// let workload = WorkloadReport(
///   name: "counter", durationSeconds: elapsed, recording: recorder.recording()
/// )
/// ```
public final class LatencyRecorder<Action: Sendable>: StoreInstrumentation {
  // The case table, the threads' cells and the effect figures; the lock makes `effectEnded`
  // (any thread) safe against the store's executor, and a thread's slow path against readers
  // of `recording()`. Actions are recorded into thread cells without it.
  private let state: Mutex<RecorderState>
  private let storeTrack: String
  /// Reads an action's top-level case without the lock; immutable.
  private let tagReader: ActionTagReader
  /// This recorder's key in each thread's `ThreadCellsCache`.
  private let ownerID = ThreadCellsCache.makeOwnerID()
  private let traceCapacity: Int

  /// How many of the actions the store times for this recorder, as given to the initializer.
  ///
  /// ```swift
  /// LatencyRecorder<Counter.Action>(sampling: .oneIn(64)).timingSampling.interval  // 64
  /// ```
  public let timingSampling: TimingSampling

  /// Creates an empty recorder.
  ///
  /// - Parameters:
  ///   - traceCapacity: How many of the most recent actions the trace sample keeps (effects:
  ///     a quarter of it). 0 keeps none.
  ///   - storeTrack: The name of the store's row in the trace view.
  ///   - sampling: How many of the actions the store times: every one (the default), or one
  ///     in N (`TimingSampling.oneIn(_:)`), whose latencies then stand for all.
  ///
  /// ```swift
  /// let recorder = LatencyRecorder<AppFeature.Action>(traceCapacity: 10_000)
  /// let sampled = LatencyRecorder<AppFeature.Action>(sampling: .oneIn(64))
  /// ```
  public init(
    traceCapacity: Int = 4096, storeTrack: String = "store",
    sampling: TimingSampling = .everyAction
  ) {
    self.timingSampling = sampling
    let state = RecorderState(
      actionType: Action.self, size: MemoryLayout<Action>.size,
      alignment: MemoryLayout<Action>.alignment, traceCapacity: traceCapacity)
    self.tagReader = state.tagReader
    self.state = Mutex(state)
    self.storeTrack = storeTrack
    self.traceCapacity = Swift.max(0, traceCapacity)
  }

  deinit {
    // No thread records into this recorder any more: it is going away.
    state.withLock { $0.deallocate() }
  }

  /// Records one reduced action. Called by the store on its executor.
  ///
  /// ```swift
  /// recorder.actionReduced(.tap, enqueuedAt: 100, startedAt: 150, endedAt: 190)
  /// ```
  public func actionReduced(
    _ action: Action, enqueuedAt: UInt64, startedAt: UInt64, endedAt: UInt64
  ) {
    withUnsafePointer(to: action) { action in
      _actionReduced(at: action, enqueuedAt: enqueuedAt, startedAt: startedAt, endedAt: endedAt)
    }
  }

  /// As ``actionReduced(_:enqueuedAt:startedAt:endedAt:)``, with the action read in place:
  /// what the store calls, from code compiled for the action type, so that this generic code
  /// copies no action.
  ///
  /// ```swift
  /// withUnsafePointer(to: Counter.Action.tap) { tap in
  ///   recorder._actionReduced(at: tap, enqueuedAt: 100, startedAt: 150, endedAt: 190)
  /// }
  /// ```
  public func _actionReduced(
    at action: UnsafePointer<Action>, enqueuedAt: UInt64, startedAt: UInt64, endedAt: UInt64
  ) {
    let (slot, cells) = threadSlot(of: ActionAddress(UnsafeRawPointer(action)))
    RecorderCells.record(
      into: cells, slot: slot, enqueuedAt: enqueuedAt, startedAt: startedAt,
      endedAt: endedAt, traceCapacity: traceCapacity)
  }

  /// Counts one action that the store reduced without timing it (sampling). Called by the
  /// store, where it would call ``actionReduced(_:enqueuedAt:startedAt:endedAt:)``.
  ///
  /// ```swift
  /// recorder.actionCounted(.tap)
  /// ```
  public func actionCounted(_ action: Action) {
    withUnsafePointer(to: action) { _actionCounted(at: $0) }
  }

  /// As ``actionCounted(_:)``, with the action read in place: what the store calls.
  ///
  /// ```swift
  /// withUnsafePointer(to: Counter.Action.tap) { recorder._actionCounted(at: $0) }
  /// ```
  public func _actionCounted(at action: UnsafePointer<Action>) {
    let (slot, cells) = threadSlot(of: ActionAddress(UnsafeRawPointer(action)))
    RecorderCells.count(into: cells, slot: slot)
  }

  /// The calling thread's cells, and the slot in them of the action at `address`; see
  /// ``ThreadCellsCache/slot(owner:topLevelTag:locate:)`` for the budget.
  @inline(__always)
  private func threadSlot(of address: ActionAddress) -> (slot: Int, cells: ThreadCells) {
    let tag = tagReader.tag(ofValueAt: address.pointer)
    if let known = ThreadCellsCache.knownSlot(owner: ownerID, topLevelTag: tag) { return known }
    return locateSlot(of: address, topLevelTag: tag)
  }

  /// ``threadSlot(of:)``'s slow path, through the lock: out of line, so that the hot path
  /// neither builds the closure's context nor saves registers for it.
  @inline(never)
  private func locateSlot(
    of address: ActionAddress, topLevelTag tag: Int
  ) -> (slot: Int, cells: ThreadCells) {
    ThreadCellsCache.learnSlot(owner: ownerID, topLevelTag: tag) {
      state.withLock { $0.locate(valueAt: address, topLevelTag: tag) }
    }
  }

  /// Counts an effect started on behalf of `action`. Called by the store on its executor.
  ///
  /// ```swift
  /// recorder.effectStarted(by: .load, at: 200)
  /// ```
  public func effectStarted(by action: Action, at time: UInt64) {
    withUnsafePointer(to: action) { pointer in
      let value = ActionAddress(UnsafeRawPointer(pointer))
      state.withLock { $0.effectStarted(byValueAt: value, at: time) }
    }
  }

  /// Records an effect's end and lifetime. Called from the effect's task, on any thread.
  ///
  /// ```swift
  /// recorder.effectEnded(by: .load, startedAt: 200, endedAt: 5_200, outcome: .finished)
  /// ```
  public func effectEnded(
    by action: Action, startedAt: UInt64, endedAt: UInt64, outcome: EffectOutcome
  ) {
    withUnsafePointer(to: action) { pointer in
      let value = ActionAddress(UnsafeRawPointer(pointer))
      state.withLock {
        $0.effectEnded(
          byValueAt: value, startedAt: startedAt, endedAt: endedAt, outcome: outcome)
      }
    }
  }

  /// A copy of what has been recorded so far, optionally with the intervals of a signposter.
  ///
  /// Adds up every recording thread's figures: every action whose recording happened-before
  /// this call is in it, with exact counts. Taken while stores still run (a live report), it
  /// may also hold some of the actions recorded meanwhile, in part: a case's count and its
  /// latency summaries may then differ by those actions. Summarizing histograms takes
  /// microseconds per case and thread; call it after the run, or now and then, not per action.
  ///
  /// ```swift
  /// let recording = recorder.recording(signposter: .shared)
  /// ```
  public func recording(signposter: Signposter? = nil) -> LatencyRecording {
    var recording = state.withLock { $0.recording(storeTrack: storeTrack) }
    recording.timingSampling = timingSampling
    if let signposter {
      recording.trace = (recording.trace + signposter.intervals())
        .sorted { $0.startNanoseconds < $1.startNanoseconds }
    }
    return recording
  }
}

extension LatencyRecorder: StoreCaseCountingInstrumentation {
  /// Cells for a store's untimed actions, when the recorder samples: the store counts them
  /// itself, and ``recording(signposter:)`` adds them up with the threads' counts.
  package func makeStoreCaseCounts() -> StoreCaseCounts? {
    guard timingSampling.interval > 1 else { return nil }
    return state.withLock { $0.makeStoreCounts(owner: self) }
  }

  package func retireStoreCaseCounts(id: Int) {
    state.withLock { $0.retireStoreCounts(id: id) }
  }
}

// Its `_actionReduced(at:…)` reads the action in place.
extension LatencyRecorder: InPlaceActionTiming {}

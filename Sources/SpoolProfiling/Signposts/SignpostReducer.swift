import SpoolCore
import Synchronization

extension Reducer {
  /// Records the reducer's work into `signposter`: an interval per reduce, an interval per
  /// effect from its start to its end, and an event per action an effect sends.
  ///
  /// The three kinds TCA's `signpost` records, with names that carry the action's case (read
  /// from the enum's tag, as the recorder reads it, not formatted per action):
  ///
  /// - each reduce, an interval named after the action: `[Feature] fetchButtonTapped`;
  /// - each `.run` effect the reduce returns, an async slice from when its task begins it to
  ///   when it returns, named after the action that started it and its outcome:
  ///   `[Feature] effect of fetchButtonTapped: finished` (or `cancelled`, or `failed`);
  /// - each action such an effect sends, an event: `[Feature] effect output: factResponse`.
  ///
  /// The records reach a report's trace (and its Chrome trace file) through
  /// ``LatencyRecorder/recording(signposter:)``, or can be read with
  /// ``Signposter/intervals()``.
  ///
  /// Where Spool differs from TCA: there is no `os_signpost` on Linux, so this records into a
  /// ``Signposter`` you pass, and it lives in SpoolProfiling (`Spool` does not depend on it).
  /// Nothing is recorded while the signposter is disabled, and then the cost is one relaxed
  /// atomic load per action. A `.send` effect is not a task: its action is reduced next and
  /// shows as that reduce's interval, with no effect slice or event.
  ///
  /// - Parameters:
  ///   - prefix: Put in brackets before every name, to tell features apart; nothing when
  ///     empty.
  ///   - signposter: Where to record.
  ///
  /// ```swift
  /// let signposter = Signposter(capacity: 4_096)
  /// signposter.isEnabled = true
  /// let store = Store(initialState: Feature.State()) {
  ///   Feature().signpost("Feature", into: signposter)
  /// }
  /// ```
  public func signpost(
    _ prefix: String = "", into signposter: Signposter
  ) -> _SignpostReducer<Self> {
    _SignpostReducer(base: self, prefix: prefix, signposter: signposter)
  }
}

/// The reducer that ``Reducer/signpost(_:into:)`` returns.
public struct _SignpostReducer<Base: Reducer>: Reducer {
  let base: Base
  let signposter: Signposter
  let names: SignpostNames

  init(base: Base, prefix: String, signposter: Signposter) {
    self.base = base
    self.signposter = signposter
    self.names = SignpostNames(
      prefix: prefix, actionType: Base.Action.self,
      size: MemoryLayout<Base.Action>.size, alignment: MemoryLayout<Base.Action>.alignment)
  }

  public func reduce(into state: inout Base.State, action: Base.Action) -> Effect<Base.Action> {
    guard signposter.isEnabled else { return base.reduce(into: &state, action: action) }
    let actionNames = names.names(of: action)
    let start = SpoolTime.now()
    let effect = base.reduce(into: &state, action: action)
    signposter.record(
      label: actionNames.reduce, start: start, end: SpoolTime.now(), kind: .interval)
    let signposter = self.signposter
    let names = self.names
    return effect.observingRuns(
      start: { signposter.isEnabled ? SpoolTime.now() : 0 },
      end: { start, outcome in
        // 0: the signposter was off when the effect began; record nothing, as `end` does.
        guard start != 0 else { return }
        signposter.record(
          label: actionNames.effect(outcome), start: start, end: SpoolTime.now(),
          kind: .effect)
      },
      sent: { output in
        guard signposter.isEnabled else { return }
        let now = SpoolTime.now()
        signposter.record(label: names.names(of: output).output, start: now, end: now, kind: .event)
      }
    )
  }
}

/// The names ``Reducer/signpost(_:into:)`` records for one action case, made once per case.
struct SignpostActionNames: Sendable {
  /// The reduce interval: `[Feature] tap`.
  var reduce: String
  /// The effect slice, by outcome: `[Feature] effect of tap: finished`.
  var finished: String
  var cancelled: String
  var failed: String
  /// The event of an action an effect sent: `[Feature] effect output: tap`.
  var output: String

  init(prefix: String, label: String) {
    reduce = prefix + label
    finished = prefix + "effect of " + label + ": finished"
    cancelled = prefix + "effect of " + label + ": cancelled"
    failed = prefix + "effect of " + label + ": failed"
    output = prefix + "effect output: " + label
  }

  func effect(_ outcome: EffectOutcome) -> String {
    switch outcome {
    case .finished: finished
    case .cancelled: cancelled
    case .failed: failed
    }
  }
}

/// The ``SignpostActionNames`` of one action type, by case; shared by the reduces and the
/// effects of one ``_SignpostReducer`` (hence a class, and a lock).
final class SignpostNames: Sendable {
  private struct Table {
    var cases: ActionCaseTable
    /// Indexed by the table's slots; filled as cases are first seen.
    var names: [SignpostActionNames?] = []
  }

  private let prefix: String
  // The case table and the names made so far; protected by the mutex (reduces and effects
  // ask from any thread).
  private let table: Mutex<Table>

  init(prefix: String, actionType: Any.Type, size: Int, alignment: Int) {
    self.prefix = prefix.isEmpty ? "" : "[\(prefix)] "
    table = Mutex(
      Table(cases: ActionCaseTable(actionType: actionType, size: size, alignment: alignment)))
  }

  /// The names of `action`'s case.
  ///
  /// Budget, a case seen before: one lock, one case-table lookup, no allocation.
  func names<Action>(of action: borrowing Action) -> SignpostActionNames {
    let prefix = self.prefix
    return withUnsafeBytes(of: action) { bytes in
      // An integer address, so that the borrowed pointer can cross into the lock's closure
      // (see `ActionAddress`).
      let value = ActionAddress(
        bytes.baseAddress ?? UnsafeRawPointer(bitPattern: MemoryLayout<Action>.alignment)!)
      return table.withLock { table in
        let slot = table.cases.slot(ofValueAt: value.pointer)
        if slot < table.names.count, let known = table.names[slot] { return known }
        if table.names.count <= slot {
          table.names.append(contentsOf: repeatElement(nil, count: slot + 1 - table.names.count))
        }
        let made = SignpostActionNames(prefix: prefix, label: table.cases.labels[slot])
        table.names[slot] = made
        return made
      }
    }
  }
}

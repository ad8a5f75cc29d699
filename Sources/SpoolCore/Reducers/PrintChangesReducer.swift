extension Reducer {
  /// Reports each action the reducer receives with `printer`, for debugging.
  ///
  /// The default printer, ``_ReducerPrinter/customDump``, prints the action with `customDump`
  /// and the state change as a diff (`-` old, `+` new), or "(No state changes)";
  /// ``_ReducerPrinter/actionLabels`` prints only the action's case. `nil` prints nothing, so a
  /// printer can be switched off by configuration without changing the reducer's type. Printing
  /// is slow: use it while debugging, not in production or in a benchmark.
  ///
  /// Where Spool differs from TCA: the printer runs on the thread that reduces the action, right
  /// after the reduce, not on a queue of its own; and where it writes is part of the printer
  /// (``_ReducerPrinter/customDump(to:)``), so a test can capture the output.
  ///
  /// - Parameter printer: How to report each action; `nil` for nothing.
  ///
  /// ```swift
  /// var body: some ReducerOf<Self> {
  ///   Reduce { state, action in … }
  ///     ._printChanges(.actionLabels)
  /// }
  /// ```
  public func _printChanges(
    _ printer: _ReducerPrinter<State, Action>? = .customDump
  ) -> _PrintChangesReducer<Self> {
    _PrintChangesReducer(base: self, printer: printer)
  }
}

/// The reducer that ``Reducer/_printChanges(_:)`` returns.
public struct _PrintChangesReducer<Base: Reducer>: Reducer {
  let base: Base
  let printer: _ReducerPrinter<Base.State, Base.Action>?

  public func reduce(into state: inout Base.State, action: Base.Action) -> Effect<Base.Action> {
    // Without a printer, no copy of the state is made.
    guard let printer else { return base.reduce(into: &state, action: action) }
    let oldState = state
    let effect = base.reduce(into: &state, action: action)
    printer.printChange(receivedAction: action, oldState: oldState, newState: state)
    return effect
  }
}

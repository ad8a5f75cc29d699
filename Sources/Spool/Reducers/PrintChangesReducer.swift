import CustomDump

extension Reducer {
  /// Prints each action and the difference it made to the state, for debugging.
  ///
  /// The action is printed with `customDump`, the state change as a diff (`-` old, `+` new), or
  /// "(No state changes)". Printing is slow: use it while debugging, not in production or in a
  /// benchmark.
  ///
  /// - Parameter printer: Where to write; standard output by default.
  ///
  /// ```swift
  /// var body: some ReducerOf<Self> {
  ///   Reduce { state, action in … }
  ///     ._printChanges()
  /// }
  /// ```
  public func _printChanges(
    to printer: @escaping @Sendable (String) -> Void = { print($0) }
  ) -> _PrintChangesReducer<Self> {
    _PrintChangesReducer(base: self, printer: printer)
  }
}

/// The reducer that ``Reducer/_printChanges(to:)`` returns.
public struct _PrintChangesReducer<Base: Reducer>: Reducer {
  let base: Base
  let printer: @Sendable (String) -> Void

  public func reduce(into state: inout Base.State, action: Base.Action) -> Effect<Base.Action> {
    let oldState = state
    let effect = base.reduce(into: &state, action: action)
    var message = "received action:\n"
    customDump(action, to: &message, indent: 2)
    message += "\n"
    if let difference = diff(oldState, state) {
      message += difference
    } else {
      message += "  (No state changes)"
    }
    printer(message)
    return effect
  }
}

import CustomDump

/// How ``Reducer/_printChanges(_:)`` reports an action: a value wrapping a closure, as in TCA.
///
/// Two printers are built in: ``customDump`` (the action and a diff of the state) and
/// ``actionLabels`` (the action's case only). Each has a form that takes where to write,
/// ``customDump(to:)`` and ``actionLabels(to:)``; the plain forms write to standard output. Make
/// your own with ``init(printChange:)``.
///
/// Where Spool differs from TCA: a printer is `Sendable` and is called on the thread that
/// reduces the action (any thread holding the store), not on a printing queue of its own, so it
/// should write quickly; the output closure receives each report whole, as one string.
///
/// ```swift
/// Counter()._printChanges(.actionLabels)
/// Counter()._printChanges(.customDump(to: { logger.debug("\($0)") }))
/// Counter()._printChanges(
///   _ReducerPrinter { action, _, newState in print(action, newState.count) }
/// )
/// ```
public struct _ReducerPrinter<State, Action>: Sendable {
  private let _printChange:
    @Sendable (_ receivedAction: Action, _ oldState: State, _ newState: State) -> Void

  /// Creates a printer that reports each action with `printChange`.
  ///
  /// - Parameter printChange: Called after each reduce with the action and the state before
  ///   and after it.
  ///
  /// ```swift
  /// let printer = _ReducerPrinter<Counter.State, Counter.Action> { action, old, new in
  ///   print("\(action): \(old.count) -> \(new.count)")
  /// }
  /// ```
  public init(
    printChange: @escaping @Sendable (
      _ receivedAction: Action, _ oldState: State, _ newState: State
    ) -> Void
  ) {
    self._printChange = printChange
  }

  /// Reports one action: the action and the state before and after reducing it.
  ///
  /// ```swift
  /// printer.printChange(receivedAction: .increment, oldState: old, newState: new)
  /// ```
  public func printChange(receivedAction: Action, oldState: State, newState: State) {
    _printChange(receivedAction, oldState, newState)
  }
}

extension _ReducerPrinter {
  /// Prints the action with `customDump` and the state change as a diff, to standard output.
  ///
  /// ```swift
  /// Counter()._printChanges(.customDump)
  /// ```
  public static var customDump: Self {
    customDump(to: { print($0) })
  }

  /// Writes the action with `customDump` and the state change as a diff (`-` old, `+` new), or
  /// "(No state changes)", to `output`, one string per action.
  ///
  /// - Parameter output: Receives each report.
  ///
  /// ```swift
  /// Counter()._printChanges(.customDump(to: { logger.debug("\($0)") }))
  /// ```
  public static func customDump(to output: @escaping @Sendable (String) -> Void) -> Self {
    Self { action, oldState, newState in
      var message = "received action:\n"
      CustomDump.customDump(action, to: &message, indent: 2)
      message += "\n"
      if let difference = diff(oldState, newState) {
        message += difference
      } else {
        message += "  (No state changes)"
      }
      output(message)
    }
  }

  /// Prints only the action's case, `received action: .incrementButtonTapped`, to standard
  /// output; the state is not printed.
  ///
  /// ```swift
  /// Counter()._printChanges(.actionLabels)
  /// ```
  public static var actionLabels: Self {
    actionLabels(to: { print($0) })
  }

  /// Writes only the action's case to `output`: `received action: .incrementButtonTapped`.
  ///
  /// A case whose payload is itself an enum shows that enum's case too,
  /// `.child(.row(.toggle))`; other payloads are left out, `.response`. The state is not
  /// printed, which makes this printer cheap enough for busy stores and safe for state that
  /// should not reach a log.
  ///
  /// - Parameter output: Receives each report.
  ///
  /// ```swift
  /// Counter()._printChanges(.actionLabels(to: { logger.debug("\($0)") }))
  /// ```
  public static func actionLabels(to output: @escaping @Sendable (String) -> Void) -> Self {
    Self { action, _, _ in
      output("received action: \(caseLabel(of: action))")
    }
  }
}

/// The case path of an enum value, `.child(.row(.toggle))`, read with `Mirror`.
///
/// Slow (reflection on each call) but only for debugging output; SpoolProfiling reads cases
/// without reflection where the cost matters.
func caseLabel(of value: Any) -> String {
  let mirror = Mirror(reflecting: value)
  guard mirror.displayStyle == .enum else { return String(describing: type(of: value)) }
  // A case without payload has no child; its description is its name (unless the type
  // customizes its description, which then is printed instead).
  guard let payload = mirror.children.first else { return ".\(value)" }
  let name = payload.label ?? "\(value)"
  if Mirror(reflecting: payload.value).displayStyle == .enum {
    return ".\(name)(\(caseLabel(of: payload.value)))"
  }
  return ".\(name)"
}

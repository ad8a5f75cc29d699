/// The state of an enum reducer with `@ReducerCaseEphemeral` cases, which says whether its
/// current case is one; `@Reducer` conforms the `State` it generates.
///
/// The presentation `ifLet(_:action:destination:)` reads it after a child action: a destination
/// in an ephemeral case is dismissed once the parent has seen the action, unless the parent
/// presented another child meanwhile (TCA's rule for alerts and dialogs). Users do not write
/// this conformance.
///
/// ```swift
/// @Reducer
/// enum Destination {
///   case edit(EditItem)
///   @ReducerCaseEphemeral
///   case confirm(Prompt<Confirmation>)
/// }
/// // Destination.State.confirm(prompt)._isEphemeral == true
/// ```
public protocol _EphemeralCaseReducerState {
  /// Whether the current case holds ephemeral state.
  var _isEphemeral: Bool { get }
}

/// Reads `_isEphemeral` of a presented state whose type has it, without boxing the value.
@usableFromInline
enum EphemeralCase<State> {
  /// The check for `State`, or `nil` when `State` has no ephemeral cases (which is then free).
  @usableFromInline
  static func reflector() -> ((State) -> Bool)? {
    guard let ephemeral = State.self as? any _EphemeralCaseReducerState.Type else { return nil }
    return reflector(ephemeral)
  }

  private static func reflector<Enum: _EphemeralCaseReducerState>(
    _: Enum.Type
  ) -> (State) -> Bool {
    { state in
      // `Enum` is `State` (the cast above succeeded on `State.self`), so the value can be read
      // as an `Enum` in place.
      withUnsafePointer(to: state) {
        $0.withMemoryRebound(to: Enum.self, capacity: 1) { $0.pointee._isEphemeral }
      }
    }
  }
}

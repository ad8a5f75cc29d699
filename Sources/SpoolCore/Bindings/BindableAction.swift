import CasePathsCore

/// An action type with a case that carries ``BindingAction``s for its feature's state.
///
/// Add a `case binding(BindingAction<State>)` to a feature's `Action`, conform it to
/// `BindableAction`, and put ``BindingReducer`` in the feature's body: each binding action then
/// writes its value into the state, as in TCA. For a `@CasePathable` action (as `@Reducer`
/// makes it), ``binding`` is provided; an action whose case paths are written by hand
/// implements it with a `switch`.
///
/// ```swift
/// @Reducer
/// struct Todos {
///   struct State: Equatable {
///     var filter = Filter.all
///   }
///   enum Action: BindableAction {
///     case binding(BindingAction<State>)
///   }
///   var body: some ReducerOf<Self> {
///     BindingReducer()
///   }
/// }
///
/// await store.send(.set(\.filter, .completed)) { $0.filter = .completed }
/// ```
public protocol BindableAction {
  /// The state that the binding actions write into.
  associatedtype State

  /// The action that carries `action`: the action type's `binding` case.
  static func binding(_ action: BindingAction<State>) -> Self

  /// The binding action this action carries, or `nil` if it is not the `binding` case.
  var binding: BindingAction<State>? { get }
}

extension BindableAction {
  /// The `binding` action that writes `value` through `keyPath`: short for
  /// `.binding(.set(keyPath, value))`.
  ///
  /// - Parameters:
  ///   - keyPath: Where in the state to write.
  ///   - value: The value to write.
  /// - Returns: The action.
  ///
  /// ```swift
  /// await store.send(.set(\.filter, .completed)) { $0.filter = .completed }
  /// ```
  public static func set<Value: Equatable & Sendable>(
    _ keyPath: WritableKeyPath<State, Value> & Sendable,
    _ value: Value
  ) -> Self {
    .binding(.set(keyPath, value))
  }
}

extension BindableAction where Self: CasePathable, AllCasePaths: CasePathReflectable<Self> {
  /// The binding action this action carries, or `nil` if it is not the `binding` case.
  ///
  /// Found through the action's case paths (`@CasePathable`): the payload of the current case,
  /// if it is a ``BindingAction`` of this feature's state. An action type must therefore have
  /// one case only whose payload is a `BindingAction<State>`.
  ///
  /// ```swift
  /// Todos.Action.set(\.filter, .active).binding  // .set(\.filter, .active)
  /// ```
  public var binding: BindingAction<State>? {
    self[case: Self.allCasePaths[self]] as? BindingAction<State>
  }
}

/// An enum of reducers, one per case: TCA's `CaseReducer`, the conformance that `@Reducer`
/// gives an enum such as `enum Destination { case add(AddItem) }`.
///
/// Its `State` and `Action` have a case per reducer, and its static ``body`` runs each case's
/// reducer on that case. Because its `State` names the enum (``CaseReducerState``), the
/// presentation ``Reducer/ifLet(_:action:fileID:filePath:line:column:)-iryg``, the
/// optional-state ``Reducer/ifLet(_:action:fileID:filePath:line:column:)-1g5gu`` and the stack
/// ``Reducer/forEach(_:action:fileID:filePath:line:column:)`` need no child reducer for it:
/// they build ``body`` from the state's type, as in TCA.
///
/// ```swift
/// @Reducer
/// enum Destination {
///   case add(AddItem)
///   case edit(EditItem)
/// }
///
/// // In the parent's body:
/// Reduce { state, action in .none }
///   .ifLet(\.$destination, action: \.destination)
/// ```
///
/// Write the conformance through `@Reducer`, which generates `State`, `Action`, the static
/// `body`, and an instance `body` that is the static one.
public protocol CaseReducer<State, Action>: Reducer where State: CaseReducerState {
  /// The type of the static ``body``.
  ///
  /// Its own associated type, not ``Reducer/Body``: each is inferred from its own `body` (the
  /// static one here, the instance one that `@Reducer` generates as `Self.body`), which a
  /// shared type could not be, as the two are distinct opaque types.
  associatedtype CaseBody: Reducer where CaseBody.State == State, CaseBody.Action == Action

  /// The reducer of every case: each case's reducer, scoped to its case.
  @ReducerBuilder<State, Action>
  static var body: CaseBody { get }
}

/// The state of a ``CaseReducer``, which names its reducer so that `ifLet` and `forEach` can
/// run it without being given one: TCA's `CaseReducerState`.
///
/// `@Reducer` conforms the `State` it generates for an enum reducer:
///
/// ```swift
/// @Reducer
/// enum Destination { case add(AddItem) }
/// // Destination.State.StateReducer == Destination
/// ```
public protocol CaseReducerState {
  /// The enum reducer whose state this is.
  associatedtype StateReducer: CaseReducer where StateReducer.State == Self
}

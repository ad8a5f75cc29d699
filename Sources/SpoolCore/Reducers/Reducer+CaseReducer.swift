import CasePathsCore

// The operators below take no child reducer: the child is a `CaseReducer` (an `@Reducer enum`),
// which its state names, so each builds `StateReducer.body` and passes it to the operator of
// the same name that takes a reducer. They must stay exactly that, so that the two forms of an
// operator behave the same; the `Identifiable` overloads exist so that dropping the closure
// keeps the identity (and so the cancellation) that the closure form gives `Identifiable` state.

extension Reducer {
  /// Runs a presented enum reducer (an `@Reducer enum`) while it is presented, with no child
  /// reducer to pass: TCA's `ifLet(\.$destination, action: \.destination)`.
  ///
  /// The same as ``Reducer/ifLet(_:action:destination:fileID:filePath:line:column:)-2jgzv``
  /// given `{ DestinationState.StateReducer.body }`: the reducer is the ``CaseReducer`` that
  /// ``CaseReducerState`` names, which `@Reducer` generates for an enum of reducers. The
  /// child runs on `.presented` actions while it is presented; `.dismiss` sets it to `nil`; its
  /// effects are cancelled when it is dismissed or replaced by another case.
  ///
  /// - Parameters:
  ///   - toPresentationState: A writable key path to the projected value of the `@Presents`
  ///     property (`\.$destination`).
  ///   - toPresentationAction: A case key path to the presentation action.
  ///   - fileID: The file ID of the place where a child action that finds no child is
  ///     reported; the caller's by default.
  ///   - filePath: The file path of that place; the caller's by default.
  ///   - line: The line of that place; the caller's by default.
  ///   - column: The column of that place; the caller's by default.
  ///
  /// ```swift
  /// @Reducer
  /// struct Inbox {
  ///   struct State: Equatable, Sendable {
  ///     @Presents var destination: Destination.State?
  ///   }
  ///   enum Action: Sendable {
  ///     case composeTapped
  ///     case destination(PresentationAction<Destination.Action>)
  ///   }
  ///   @Reducer
  ///   enum Destination {
  ///     case compose(Compose)
  ///     case settings(Settings)
  ///   }
  ///   var body: some ReducerOf<Self> {
  ///     Reduce { state, action in
  ///       if case .composeTapped = action { state.destination = .compose(Compose.State()) }
  ///       return .none
  ///     }
  ///     .ifLet(\.$destination, action: \.destination)
  ///   }
  /// }
  /// extension Inbox.Destination.State: Equatable {}
  /// ```
  @inlinable
  public func ifLet<DestinationState: CaseReducerState, DestinationAction: Sendable>(
    _ toPresentationState: WritableKeyPath<State, PresentationState<DestinationState>>,
    action toPresentationAction: CaseKeyPath<Action, PresentationAction<DestinationAction>>,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> _PresentationReducer<Self, DestinationState.StateReducer.CaseBody>
  where DestinationState.StateReducer.Action == DestinationAction {
    ifLet(
      toPresentationState, action: toPresentationAction,
      destination: { DestinationState.StateReducer.body },
      fileID: fileID, filePath: filePath, line: line, column: column)
  }

  /// Runs a presented enum reducer with `Identifiable` state while it is presented, with no
  /// child reducer to pass; a child of another ID is another child.
  ///
  /// As ``Reducer/ifLet(_:action:fileID:filePath:line:column:)-iryg``, except that, as with
  /// ``Reducer/ifLet(_:action:destination:fileID:filePath:line:column:)-vo7o``, replacing the
  /// child with one of another ID cancels the effects of the one replaced.
  ///
  /// ```swift
  /// .ifLet(\.$destination, action: \.destination)  // Destination.State: Identifiable
  /// ```
  @inlinable
  public func ifLet<DestinationState: CaseReducerState, DestinationAction: Sendable>(
    _ toPresentationState: WritableKeyPath<State, PresentationState<DestinationState>>,
    action toPresentationAction: CaseKeyPath<Action, PresentationAction<DestinationAction>>,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> _PresentationReducer<Self, DestinationState.StateReducer.CaseBody>
  where
    DestinationState.StateReducer.Action == DestinationAction,
    DestinationState: Identifiable, DestinationState.ID: Sendable
  {
    ifLet(
      toPresentationState, action: toPresentationAction,
      destination: { DestinationState.StateReducer.body },
      fileID: fileID, filePath: filePath, line: line, column: column)
  }

  /// Runs an enum reducer (an `@Reducer enum`) on optional state while it is present, with no
  /// child reducer to pass: TCA's `ifLet(\.destination, action: \.destination)`.
  ///
  /// The same as ``Reducer/ifLet(_:action:then:fileID:filePath:line:column:)-9z118`` given
  /// `{ ChildState.StateReducer.body }`: the reducer is the ``CaseReducer`` that
  /// ``CaseReducerState`` names. The child's effects are cancelled when its state becomes
  /// `nil`, or moves to another case.
  ///
  /// - Parameters:
  ///   - toChildState: A writable key path to the optional child state.
  ///   - toChildAction: A case key path to the child action.
  ///   - fileID: The file ID of the place where a child action that finds no child state is
  ///     reported; the caller's by default.
  ///   - filePath: The file path of that place; the caller's by default.
  ///   - line: The line of that place; the caller's by default.
  ///   - column: The column of that place; the caller's by default.
  ///
  /// ```swift
  /// Reduce { state, action in
  ///   if case .addTapped = action { state.destination = .add(AddItem.State()) }
  ///   return .none
  /// }
  /// .ifLet(\.destination, action: \.destination)  // destination: Destination.State?
  /// ```
  @inlinable
  public func ifLet<ChildState: CaseReducerState, ChildAction: Sendable>(
    _ toChildState: WritableKeyPath<State, ChildState?>,
    action toChildAction: CaseKeyPath<Action, ChildAction>,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> _IfLetReducer<Self, ChildState.StateReducer.CaseBody>
  where ChildState.StateReducer.Action == ChildAction {
    ifLet(
      toChildState, action: toChildAction, then: { ChildState.StateReducer.body },
      fileID: fileID, filePath: filePath, line: line, column: column)
  }

  /// Runs an enum reducer with `Identifiable` state on optional state while it is present,
  /// with no child reducer to pass; a child of another ID is another child.
  ///
  /// As ``Reducer/ifLet(_:action:fileID:filePath:line:column:)-1g5gu``, except that, as with
  /// ``Reducer/ifLet(_:action:then:fileID:filePath:line:column:)-34wtb``, replacing the child
  /// with one of another ID cancels the effects of the one replaced.
  ///
  /// ```swift
  /// .ifLet(\.destination, action: \.destination)  // Destination.State: Identifiable
  /// ```
  @inlinable
  public func ifLet<ChildState: CaseReducerState, ChildAction: Sendable>(
    _ toChildState: WritableKeyPath<State, ChildState?>,
    action toChildAction: CaseKeyPath<Action, ChildAction>,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> _IfLetReducer<Self, ChildState.StateReducer.CaseBody>
  where
    ChildState.StateReducer.Action == ChildAction,
    ChildState: Identifiable, ChildState.ID: Sendable
  {
    ifLet(
      toChildState, action: toChildAction, then: { ChildState.StateReducer.body },
      fileID: fileID, filePath: filePath, line: line, column: column)
  }

  /// Runs the features of a navigation stack whose elements are an enum reducer (an
  /// `@Reducer enum Path`), with no element reducer to pass: TCA's
  /// `forEach(\.path, action: \.path)`.
  ///
  /// The same as ``Reducer/forEach(_:action:destination:fileID:filePath:line:column:)`` given
  /// `{ ElementState.StateReducer.body }`: the reducer is the ``CaseReducer`` that
  /// ``CaseReducerState`` names. An element's effects are cancelled when it leaves the stack.
  ///
  /// - Parameters:
  ///   - toStackState: A writable key path to the stack's state.
  ///   - toStackAction: A case key path to the stack's action.
  ///   - fileID: The file ID of the place where misuse (an unknown ID, a reused ID) is
  ///     reported; the caller's by default.
  ///   - filePath: The file path of that place; the caller's by default.
  ///   - line: The line of that place; the caller's by default.
  ///   - column: The column of that place; the caller's by default.
  ///
  /// ```swift
  /// @Reducer
  /// enum Path {
  ///   case detail(Detail)
  ///   case settings(Settings)
  /// }
  ///
  /// // In the parent's body, with `var path = StackState<Path.State>()` and
  /// // `case path(StackActionOf<Path>)`:
  /// Reduce { state, action in .none }
  ///   .forEach(\.path, action: \.path)
  /// ```
  @inlinable
  public func forEach<ElementState: CaseReducerState, ElementAction: Sendable>(
    _ toStackState: WritableKeyPath<State, StackState<ElementState>>,
    action toStackAction: CaseKeyPath<Action, StackAction<ElementState, ElementAction>>,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> _StackReducer<Self, ElementState.StateReducer.CaseBody>
  where ElementState.StateReducer.Action == ElementAction {
    forEach(
      toStackState, action: toStackAction, destination: { ElementState.StateReducer.body },
      fileID: fileID, filePath: filePath, line: line, column: column)
  }
}

import CasePathsCore
import ConcurrencyExtras
import Dependencies

extension Reducer {
  /// Runs a presented child feature while it is presented: TCA's `ifLet` for `@Presents`
  /// state and a ``PresentationAction``.
  ///
  /// - ``PresentationAction/presented(_:)`` runs the child, before this reducer, while the
  ///   child's state is present. One that arrives while it is `nil` is reported, naming the
  ///   action and the reducer, and ignored.
  /// - ``PresentationAction/dismiss`` runs this reducer (which still sees the child), then sets
  ///   the child's state to `nil`, unless this reducer presented another child meanwhile (another
  ///   case, or another ID), which stays presented, as in TCA. One that arrives while the state
  ///   is already `nil` does nothing: a dismissal may be queued behind the parent's own.
  /// - ``DismissEffect`` (`@Dependency(\.dismiss)`) in the child's effects sends `.dismiss`;
  ///   `@Dependency(\.isPresented)` is `true` in the child's reduce and effects.
  /// - A child action sent to an `@ReducerCaseEphemeral` case of an `@Reducer` enum (state
  ///   that no reducer runs, such as a confirmation) runs this reducer, then dismisses the
  ///   child, unless this reducer presented another child meanwhile, as TCA does for alerts.
  ///
  /// The child's effects end with it, as in TCA: when its state becomes `nil`, or is replaced
  /// by another child, every effect it started is cancelled. Another child is a child in
  /// another case of an `@CasePathable` enum state (`.editor` replaced by `.confirmation`) or,
  /// for `Identifiable` state, with another ID (a child that changes its own ID is another
  /// child too); a struct without an ID stays the same child until it is `nil`. Cancellation
  /// IDs the child uses are qualified by its presence, so they never meet the parent's or
  /// another child's.
  ///
  /// The operator remembers, in the ``PresentationState``, the child it saw when it last ran,
  /// so a child that a reducer combined beside it removed or replaced has its effects
  /// cancelled too: in the same action if that reducer runs before this one, at the next
  /// action this one runs otherwise, as in TCA.
  ///
  /// Cost: while a child is presented, every action reads the child's identity once, after
  /// this reducer runs (for enum state, a look-up of its case key path), and compares it with
  /// the one remembered; a child action adds the child's reduce, inside a `withDependencies`
  /// that sets `isPresented` (a copy of the dependency values with one value set, as in TCA),
  /// and a second identity read if the child returns an effect. Nothing else is allocated
  /// unless the child returns an effect, is presented or goes away.
  ///
  /// - Parameters:
  ///   - toPresentationState: A writable key path to the projected value of the `@Presents`
  ///     property (`\.$destination`).
  ///   - toPresentationAction: A case key path to the presentation action.
  ///   - destination: The presented child's reducer.
  ///   - fileID: The file ID of the place where a child action that finds no child is
  ///     reported; the caller's by default.
  ///   - filePath: The file path of that place; the caller's by default.
  ///   - line: The line of that place; the caller's by default.
  ///   - column: The column of that place; the caller's by default.
  ///
  /// ```swift
  /// struct Inbox: Reducer {
  ///   struct State: Equatable, Sendable {
  ///     @Presents var destination: Destination.State?
  ///   }
  ///   @CasePathable
  ///   enum Action: Equatable, Sendable {
  ///     case composeTapped
  ///     case destination(PresentationAction<Destination.Action>)
  ///   }
  ///   var body: some ReducerOf<Self> {
  ///     Reduce { state, action in
  ///       switch action {
  ///       case .composeTapped:
  ///         state.destination = .compose(Compose.State())
  ///         return .none
  ///       case .destination(.presented(.compose(.sent))):
  ///         state.destination = nil  // cancels Compose's effects
  ///         return .none
  ///       case .destination:
  ///         return .none
  ///       }
  ///     }
  ///     .ifLet(\.$destination, action: \.destination) {
  ///       Destination()
  ///     }
  ///   }
  /// }
  /// ```
  @inlinable
  public func ifLet<
    ChildState, ChildAction: Sendable, Child: Reducer<ChildState, ChildAction>
  >(
    _ toPresentationState: WritableKeyPath<State, PresentationState<ChildState>>,
    action toPresentationAction: CaseKeyPath<Action, PresentationAction<ChildAction>>,
    @ReducerBuilder<ChildState, ChildAction> destination: () -> Child,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> _PresentationReducer<Self, Child> {
    let presentedCase = PresentedCase<ChildState>.reflector()
    return presentation(
      toPresentationState, toPresentationAction, destination(),
      childID: { state in
        state[keyPath: toPresentationState].wrappedValue.map {
          PresentedChildID(presentedCase: presentedCase?($0), id: NoChildID())
        }
      },
      location: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// Runs a presented child feature with `Identifiable` state while it is presented; a child
  /// of another ID is another child.
  ///
  /// As the `ifLet(_:action:destination:)` for any presented state, except that replacing the
  /// child with one of another ID (in the same case, for enum state) cancels the effects of
  /// the one replaced, and cancellation IDs are qualified by the child's ID as well.
  ///
  /// ```swift
  /// .ifLet(\.$editor, action: \.editor) {
  ///   Editor()  // Editor.State: Identifiable
  /// }
  /// ```
  @inlinable
  public func ifLet<
    ChildState, ChildAction: Sendable, Child: Reducer<ChildState, ChildAction>
  >(
    _ toPresentationState: WritableKeyPath<State, PresentationState<ChildState>>,
    action toPresentationAction: CaseKeyPath<Action, PresentationAction<ChildAction>>,
    @ReducerBuilder<ChildState, ChildAction> destination: () -> Child,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> _PresentationReducer<Self, Child> where ChildState: Identifiable, ChildState.ID: Sendable {
    let presentedCase = PresentedCase<ChildState>.reflector()
    return presentation(
      toPresentationState, toPresentationAction, destination(),
      childID: { state in
        state[keyPath: toPresentationState].wrappedValue.map {
          PresentedChildID(presentedCase: presentedCase?($0), id: $0.id)
        }
      },
      location: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// The reducer both presentation `ifLet`s return; they differ in what identifies the child.
  @inlinable
  func presentation<ChildState, ChildAction, Child: Reducer<ChildState, ChildAction>, ChildID>(
    _ toPresentationState: WritableKeyPath<State, PresentationState<ChildState>>,
    _ toPresentationAction: CaseKeyPath<Action, PresentationAction<ChildAction>>,
    _ child: Child,
    childID: @escaping (State) -> ChildID?,
    location: SourceLocation
  ) -> _PresentationReducer<Self, Child> where ChildID: Hashable & Sendable {
    let toAction = AnyCasePath(toPresentationAction)
    let toChildAction = AnyCasePath<Action, ChildAction>(
      embed: { toAction.embed(.presented($0)) },
      extract: {
        guard case let .presented(childAction)? = toAction.extract(from: $0) else { return nil }
        return childAction
      }
    )
    // For a destination with `@ReducerCaseEphemeral` cases only: the identity of the child when
    // it is in one of them.
    let ephemeralChild = EphemeralCase<ChildState>.reflector().map { isEphemeral in
      { (state: State) -> AnyHashableSendable? in
        guard let child = state[keyPath: toPresentationState].wrappedValue, isEphemeral(child),
          let id = childID(state)
        else { return nil }
        return AnyHashableSendable(id)
      }
    }
    return _PresentChildReducer(
      parent: _PresentationDismissReducer(
        parent: self, toPresentationState: toPresentationState, toPresentationAction: toAction,
        presentedChild: { state in childID(state).map { AnyHashableSendable($0) } },
        ephemeralChild: ephemeralChild),
      child: child,
      modifyChild: { state, body in
        // In place, as `ifLet`'s: a copy would make the child's storage non-unique.
        guard state[keyPath: toPresentationState].wrappedValue != nil else { return nil }
        // Presented: `isPresented` holds in the child's reduce and in the effects it creates.
        return DependencyValues.presenting {
          body(&state[keyPath: toPresentationState].wrappedValue!)
        }
      },
      childID: childID,
      path: KeyPathIdentity(toPresentationState),
      toChildAction: toChildAction,
      operatorName: "ifLet",
      missingState: "a presentation action when destination state was absent",
      location: location,
      dismissAction: toAction.embed(.dismiss),
      mounted: (
        get: { $0[keyPath: toPresentationState].mounted },
        set: { $0[keyPath: toPresentationState].mounted = $1 }
      )
    )
  }
}

/// The reducer that the presentation `ifLet(_:action:destination:)` returns.
public typealias _PresentationReducer<Parent: Reducer, Child: Reducer> =
  _PresentChildReducer<
    _PresentationDismissReducer<Parent, Child.State, Child.Action>, Child
  >

/// Runs the parent, then carries out a ``PresentationAction/dismiss``: the parent sees the
/// child still presented, and the operator around this reducer then finds it gone and cancels
/// its effects. A child that the parent presented in its place is left presented. A child
/// action sent to ephemeral state (an `@ReducerCaseEphemeral` case) dismisses it the same way,
/// after the parent, unless the parent presented another child.
public struct _PresentationDismissReducer<
  Parent: Reducer, ChildState, ChildAction: Sendable
>: Reducer {
  @usableFromInline let parent: Parent
  @usableFromInline
  let toPresentationState: WritableKeyPath<Parent.State, PresentationState<ChildState>>
  @usableFromInline
  let toPresentationAction: AnyCasePath<Parent.Action, PresentationAction<ChildAction>>
  /// The presented child's identity while it is ephemeral, `nil` otherwise; `nil` itself for
  /// a destination without ephemeral cases, which then pays nothing for them.
  /// The identity of the presented child (its case and ID), `nil` while none is.
  @usableFromInline let presentedChild: (Parent.State) -> AnyHashableSendable?
  @usableFromInline let ephemeralChild: ((Parent.State) -> AnyHashableSendable?)?

  @inlinable
  init(
    parent: Parent,
    toPresentationState: WritableKeyPath<Parent.State, PresentationState<ChildState>>,
    toPresentationAction: AnyCasePath<Parent.Action, PresentationAction<ChildAction>>,
    presentedChild: @escaping (Parent.State) -> AnyHashableSendable?,
    ephemeralChild: ((Parent.State) -> AnyHashableSendable?)?
  ) {
    self.presentedChild = presentedChild
    self.parent = parent
    self.toPresentationState = toPresentationState
    self.toPresentationAction = toPresentationAction
    self.ephemeralChild = ephemeralChild
  }

  @inlinable
  public func reduce(
    into state: inout Parent.State, action: Parent.Action
  ) -> Effect<Parent.Action> {
    switch toPresentationAction.extract(from: action) {
    case .dismiss?:
      guard let before = presentedChild(state) else {
        return parent.reduce(into: &state, action: action)
      }
      let effect = parent.reduce(into: &state, action: action)
      // A parent that answered the dismissal by presenting another child keeps it; the child
      // being dismissed is gone all the same, and the operator around cancels its effects.
      if presentedChild(state) == before {
        state[keyPath: toPresentationState].wrappedValue = nil
      }
      return effect
    case .presented?:
      guard let ephemeralChild, let before = ephemeralChild(state) else {
        return parent.reduce(into: &state, action: action)
      }
      let effect = parent.reduce(into: &state, action: action)
      if ephemeralChild(state) == before {
        state[keyPath: toPresentationState].wrappedValue = nil
      }
      return effect
    case nil:
      return parent.reduce(into: &state, action: action)
    }
  }
}

/// The identity of a presented child: its case, for `@CasePathable` enum state, and its ID.
@usableFromInline
struct PresentedChildID<ID: Hashable & Sendable>: Hashable, Sendable {
  @usableFromInline let presentedCase: KeyPathIdentity?
  @usableFromInline let id: ID

  @inlinable
  init(presentedCase: KeyPathIdentity?, id: ID) {
    self.presentedCase = presentedCase
    self.id = id
  }
}

/// Finds the case of presented enum state, so that a child in another case is another child.
@usableFromInline
enum PresentedCase<State> {
  /// A function from a state to its case key path, when `State` is a `@CasePathable` enum
  /// (whose case paths can be reflected); `nil` for other state. Decided once, when the
  /// operator is built, so that an action costs no dynamic cast.
  @usableFromInline
  static func reflector() -> ((State) -> KeyPathIdentity)? {
    guard let casePathable = State.self as? any CasePathable.Type else { return nil }
    return reflector(casePathable)
  }

  private static func reflector<Enum: CasePathable>(
    _: Enum.Type
  ) -> ((State) -> KeyPathIdentity)? {
    guard let allCasePaths = Enum.allCasePaths as? any CasePathReflectable<Enum> else {
      return nil
    }
    return { state in
      // `Enum` is `State` (the cast above succeeded on `State.self`), so the value can be read
      // as an `Enum` in place, without boxing it in an `Any`.
      withUnsafePointer(to: state) {
        $0.withMemoryRebound(to: Enum.self, capacity: 1) {
          KeyPathIdentity(allCasePaths[$0.pointee])
        }
      }
    }
  }
}

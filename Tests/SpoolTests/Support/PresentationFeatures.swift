import CasePaths
import Dependencies
import Spool

// Shared by SpoolTests and SpoolTestingTests (SpoolTestingTests/Support links to this file).
// Features for the tests of presentation (`@Presents`, `ifLet(\.$destination)`), stacks
// (`StackState`, `forEach(\.path)`) and `dismiss`: each child effect runs until it is
// cancelled, or until a test clock reaches its deadline.

/// A presented child: effects under one cancellation ID, a timer, and a dismissal from its
/// effect.
struct Editor: Reducer {
  struct State: Equatable, Sendable {
    var seconds = 1
    var ticks = 0
    var finished = 0
  }

  @CasePathable
  enum Action: Equatable, Sendable {
    /// An effect without an ID that runs until it is cancelled.
    case listen
    /// A timer without an ID.
    case startTimer
    case tick
    /// After `seconds`, `.finished`; under `CancelID.work`, replacing what runs there.
    case start
    case finished
    /// `dismiss()` from an effect.
    case closeTapped
  }

  enum CancelID { case work }

  @Dependency(\.continuousClock) var clock
  @Dependency(\.dismiss) var dismiss

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .listen:
      return .run { _ in try await Task.never() }
    case .startTimer:
      return .run { [clock] send in
        for await _ in clock.timer(interval: .seconds(1)) { await send(.tick) }
      }
    case .tick:
      state.ticks += 1
      return .none
    case .start:
      return .run { [clock, seconds = state.seconds] send in
        try await clock.sleep(for: .seconds(seconds))
        await send(.finished)
      }
      .cancellable(id: CancelID.work, cancelInFlight: true)
    case .finished:
      state.finished += 1
      return .none
    case .closeTapped:
      return .run { _ in await dismiss() }
    }
  }
}

/// The destinations of `Inbox`: the same feature in two cases, so that moving from one case
/// to the other is presenting another child.
struct Destination: Reducer {
  @CasePathable
  enum State: Equatable, Sendable {
    case editor(Editor.State)
    case preview(Editor.State)
  }

  @CasePathable
  enum Action: Equatable, Sendable {
    case editor(Editor.Action)
    case preview(Editor.Action)
  }

  var body: some ReducerOf<Self> {
    Scope(state: \.editor, action: \.editor) { Editor() }
    Scope(state: \.preview, action: \.preview) { Editor() }
  }
}

/// A parent that presents a destination and pushes editors on a stack.
struct Inbox: Reducer {
  struct State: Equatable, Sendable {
    @Presents var destination: Destination.State?
    var path = StackState<Editor.State>()
    var dismissalsSeen = 0
  }

  @CasePathable
  enum Action: Equatable, Sendable {
    case destination(PresentationAction<Destination.Action>)
    case path(StackActionOf<Editor>)
    case compose(seconds: Int)
    case preview
    case close
    case push(seconds: Int)
    case popAll
  }

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case let .compose(seconds):
        state.destination = .editor(Editor.State(seconds: seconds))
      case .preview:
        state.destination = .preview(Editor.State())
      case .close:
        state.destination = nil
      case let .push(seconds):
        state.path.append(Editor.State(seconds: seconds))
      case .popAll:
        state.path.removeAll()
      case .destination(.dismiss):
        // The parent sees the child still presented when it is dismissed.
        if state.destination != nil { state.dismissalsSeen += 1 }
      case .destination, .path:
        break
      }
      return .none
    }
    .ifLet(\.$destination, action: \.destination) {
      Destination()
    }
    .forEach(\.path, action: \.path) {
      Editor()
    }
  }
}

/// `Identifiable` presented state: a child of another ID is another child.
struct Viewer: Reducer {
  struct Child: Reducer {
    struct State: Equatable, Identifiable, Sendable { var id: Int }
    @CasePathable
    enum Action: Equatable, Sendable {
      case listen
      /// Changes the child's own ID, then listens (as the child of the new ID).
      case renumber(Int)
    }
    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      if case let .renumber(id) = action { state.id = id }
      return .run { _ in try await Task.never() }
    }
  }

  struct State: Equatable, Sendable {
    @Presents var child: Child.State?
  }

  @CasePathable
  enum Action: Equatable, Sendable {
    case child(PresentationAction<Child.Action>)
    case show(id: Int)
  }

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      if case let .show(id) = action { state.child = Child.State(id: id) }
      return .none
    }
    .ifLet(\.$child, action: \.child) {
      Child()
    }
  }
}

/// Presents an `Inbox`, whose own destination and stack are presentations nested in this one.
struct Shell: Reducer {
  struct State: Equatable, Sendable {
    @Presents var inbox: Inbox.State?
  }

  @CasePathable
  enum Action: Equatable, Sendable {
    case inbox(PresentationAction<Inbox.Action>)
  }

  var body: some ReducerOf<Self> {
    Reduce { _, _ in .none }
      .ifLet(\.$inbox, action: \.inbox) {
        Inbox()
      }
  }
}

/// A stack whose elements a reducer combined beside the `forEach` removes: before it runs
/// (`clearBefore`) or after it (`clearAfter`); `nothing` is any other action.
struct Workbench: Reducer {
  struct State: Equatable, Sendable {
    var path = StackState<Editor.State>()
  }

  @CasePathable
  enum Action: Equatable, Sendable {
    case path(StackActionOf<Editor>)
    case clearBefore
    case clearAfter
    case nothing
  }

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      if action == .clearBefore { state.path.removeAll() }
      return .none
    }
    EmptyReducer<State, Action>()
      .forEach(\.path, action: \.path) { Editor() }
    Reduce { state, action in
      if action == .clearAfter { state.path.removeAll() }
      return .none
    }
  }
}

/// A parent that answers the dismissal of its editor by presenting a preview in its place.
struct Redirect: Reducer {
  struct State: Equatable, Sendable {
    @Presents var destination: Destination.State?
  }

  @CasePathable
  enum Action: Equatable, Sendable {
    case destination(PresentationAction<Destination.Action>)
  }

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      if case .destination(.dismiss) = action, case .editor? = state.destination {
        state.destination = .preview(Editor.State())
      }
      return .none
    }
    .ifLet(\.$destination, action: \.destination) {
      Destination()
    }
  }
}

/// A presented editor that a reducer combined beside the `ifLet` dismisses: before it runs
/// (`closeBefore`) or after it (`closeAfter`); `nothing` is any other action.
struct Desk: Reducer {
  struct State: Equatable, Sendable {
    @Presents var editor: Editor.State?
  }

  @CasePathable
  enum Action: Equatable, Sendable {
    case editor(PresentationAction<Editor.Action>)
    case open
    case closeBefore
    case closeAfter
    case nothing
  }

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      if action == .open { state.editor = Editor.State() }
      if action == .closeBefore { state.editor = nil }
      return .none
    }
    EmptyReducer<State, Action>()
      .ifLet(\.$editor, action: \.editor) { Editor() }
    Reduce { state, action in
      if action == .closeAfter { state.editor = nil }
      return .none
    }
  }
}

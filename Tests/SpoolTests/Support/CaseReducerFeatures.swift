import CasePaths
import Spool

// Shared by SpoolTests and SpoolTestingTests (SpoolTestingTests/Support links to this file).
// Features whose children are enum reducers (`@Reducer enum`), run by the `ifLet` and
// `forEach` that take no child reducer. The children are `Editor` (PresentationFeatures.swift):
// its effects run until they are cancelled, or until a test clock reaches their deadline.

/// A parent with a presented destination, an optional sheet and a stack, each an enum reducer
/// run with no closure: `ifLet(\.$destination, action:)`, `ifLet(\.sheet, action:)` and
/// `forEach(\.path, action:)`.
@Reducer
struct Mailroom {
  struct State: Equatable, Sendable {
    @Presents var destination: Destination.State?
    var sheet: Sheet.State?
    var path = StackState<Path.State>()
  }

  enum Action: Sendable {
    case destination(PresentationAction<Destination.Action>)
    case sheet(Sheet.Action)
    case path(StackActionOf<Path>)
    case compose(seconds: Int)
    case preview
    case openSheet
    case closeSheet
    case pushEditor(seconds: Int)
    case pushViewer
  }

  /// Two cases of the same feature, so that moving between them presents another child.
  @Reducer
  enum Destination {
    case editor(Editor)
    case preview(Editor)
  }

  @Reducer
  enum Sheet {
    case editor(Editor)
  }

  @Reducer
  enum Path {
    case editor(Editor)
    case viewer(Editor)
  }

  var body: some ReducerOf<Self> {
    Reduce { Self.core(into: &$0, action: $1) }
      .ifLet(\.$destination, action: \.destination)
      .ifLet(\.sheet, action: \.sheet)
      .forEach(\.path, action: \.path)
  }

  /// The parent's own logic, shared with `ClosureMailroom`.
  static func core(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case let .compose(seconds):
      state.destination = .editor(Editor.State(seconds: seconds))
    case .preview:
      state.destination = .preview(Editor.State())
    case .openSheet:
      state.sheet = .editor(Editor.State())
    case .closeSheet:
      state.sheet = nil
    case let .pushEditor(seconds):
      state.path.append(.editor(Editor.State(seconds: seconds)))
    case .pushViewer:
      state.path.append(.viewer(Editor.State()))
    case .destination, .sheet, .path:
      break
    }
    return .none
  }
}

/// `Mailroom` with the closure forms, each given its enum's static `body`: they still compile,
/// and behave as the forms without a closure.
@Reducer
struct ClosureMailroom {
  typealias State = Mailroom.State
  typealias Action = Mailroom.Action

  var body: some ReducerOf<Self> {
    Reduce { Mailroom.core(into: &$0, action: $1) }
      .ifLet(\.$destination, action: \.destination) {
        Mailroom.Destination.body
      }
      .ifLet(\.sheet, action: \.sheet) {
        Mailroom.Sheet.body
      }
      .forEach(\.path, action: \.path) {
        Mailroom.Path.body
      }
  }
}

// In the file that declares the enums, so that the conformances are derived.
extension Mailroom.Destination.State: Equatable {}
extension Mailroom.Sheet.State: Equatable {}
extension Mailroom.Path.State: Equatable {}

/// A parent whose presented and optional children are enum reducers with `Identifiable`
/// state: with no closure, as with one, a child of another ID is another child.
@Reducer
struct Album {
  struct State: Equatable, Sendable {
    @Presents var photo: Photo.State?
    var caption: Photo.State?
  }

  enum Action: Sendable {
    case photo(PresentationAction<Photo.Action>)
    case caption(Photo.Action)
    case show(id: Int)
    case showCaption(id: Int)
  }

  @Reducer
  enum Photo {
    case viewer(Viewer.Child)
  }

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case let .show(id):
        state.photo = .viewer(Viewer.Child.State(id: id))
      case let .showCaption(id):
        state.caption = .viewer(Viewer.Child.State(id: id))
      case .photo, .caption:
        break
      }
      return .none
    }
    .ifLet(\.$photo, action: \.photo)
    .ifLet(\.caption, action: \.caption)
  }
}

extension Album.Photo.State: Equatable {}

extension Album.Photo.State: Identifiable {
  var id: Int {
    switch self {
    case let .viewer(state): state.id
    }
  }
}

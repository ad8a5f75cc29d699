import Spool

/// A list of names with an "add" and an "edit" screen, written with `@Reducer` as in TCA: the
/// screens are the cases of the enum reducer `Destination`, run with `ifLet` and no closure.
@Reducer
struct Inventory {
  struct State: Equatable, Sendable {
    var names: [String] = []
    var destination: Destination.State?
  }

  enum Action: Sendable {
    case addButtonTapped
    case editButtonTapped(index: Int)
    case destination(Destination.Action)
  }

  @Reducer
  enum Destination {
    case add(AddName)
    case edit(EditName)
  }

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .addButtonTapped:
        state.destination = .add(AddName.State())
        return .none
      case let .editButtonTapped(index):
        state.destination = .edit(EditName.State(index: index, name: state.names[index]))
        return .none
      case let .destination(.add(.delegate(.save(name)))):
        state.names.append(name)
        state.destination = nil
        return .none
      case let .destination(.edit(.delegate(.rename(index, name)))):
        state.names[index] = name
        state.destination = nil
        return .none
      case .destination:
        return .none
      }
    }
    .ifLet(\.destination, action: \.destination)
  }
}

// As in TCA: the enum reducer's state is `Equatable` because the test store needs it, and the
// extension must be in the file that declares `Destination` for the conformance to be derived.
extension Inventory.Destination.State: Equatable {}

/// The "add" screen: a name, saved through a delegate action.
@Reducer
struct AddName {
  struct State: Equatable, Sendable {
    var name = ""
  }

  enum Action: Sendable {
    case nameChanged(String)
    case saveButtonTapped
    case delegate(Delegate)

    @CasePathable
    enum Delegate: Sendable {
      case save(String)
    }
  }

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case let .nameChanged(name):
      state.name = name
      return .none
    case .saveButtonTapped:
      return .send(.delegate(.save(state.name)))
    case .delegate:
      return .none
    }
  }
}

/// The "edit" screen: renames the name at an index, through a delegate action.
@Reducer
struct EditName {
  struct State: Equatable, Sendable {
    let index: Int
    var name: String
  }

  enum Action: Sendable {
    case nameChanged(String)
    case saveButtonTapped
    case delegate(Delegate)

    @CasePathable
    enum Delegate: Sendable {
      case rename(index: Int, name: String)
    }
  }

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case let .nameChanged(name):
        state.name = name
        return .none
      case .saveButtonTapped:
        return .send(.delegate(.rename(index: state.index, name: state.name)))
      case .delegate:
        return .none
      }
    }
  }
}

/// A session whose state is an enum, written with `@Reducer`: the macro makes `State` case
/// pathable, so that `Scope` and `ifCaseLet` take `\.loggedOut` and `\.loggedIn`.
@Reducer
struct LoginFlow {
  enum State: Equatable, Sendable {
    case loggedOut(AddName.State)
    case loggedIn(name: String)
  }

  enum Action: Sendable {
    case loggedOut(AddName.Action)
    case logOutButtonTapped
  }

  var body: some ReducerOf<Self> {
    Scope(state: \.loggedOut, action: \.loggedOut) {
      AddName()
    }
    Reduce { state, action in
      switch action {
      case let .loggedOut(.delegate(.save(name))):
        state = .loggedIn(name: name)
        return .none
      case .loggedOut:
        return .none
      case .logOutButtonTapped:
        state = .loggedOut(AddName.State())
        return .none
      }
    }
  }
}

/// An enum reducer without cases compiles: its `body` is an `EmptyReducer`.
@Reducer
enum NoDestination {}

import CasePaths
import IdentifiedCollections
import Spool

/// A Todos-style list whose tests name actions by case key paths, as TCA's tests do.
struct TodoList: Reducer {
  struct State: Equatable, Sendable {
    var rows: IdentifiedArrayOf<TodoRow.State> = []
  }

  @CasePathable
  enum Action: Equatable, Sendable {
    case add(String)
    case clear
    case rows(IdentifiedActionOf<TodoRow>)
  }

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case let .add(title):
        state.rows.append(TodoRow.State(id: (state.rows.ids.max() ?? 0) + 1, title: title))
        return .none
      case .clear:
        state.rows.removeAll()
        return .none
      case .rows:
        return .none
      }
    }
    .forEach(\.rows, action: \.rows) {
      TodoRow()
    }
  }
}

struct TodoRow: Reducer {
  struct State: Equatable, Identifiable, Sendable {
    let id: Int
    var title = ""
    var isDone = false
    var isSaving = false
  }

  @CasePathable
  enum Action: Equatable, Sendable {
    case rename(String)
    case saved
    case toggle
  }

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case let .rename(title):
        state.title = title
        return .none
      case .saved:
        state.isSaving = false
        return .none
      case .toggle:
        state.isDone.toggle()
        state.isSaving = true
        return .run { send in await send(.saved) }
      }
    }
  }
}

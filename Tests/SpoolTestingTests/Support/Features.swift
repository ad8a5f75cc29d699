import CasePaths
import Clocks
import ConcurrencyExtras
import Dependencies
import IdentifiedCollections
import IssueReporting
import Spool

// The classic features, written the TCA way, that the tests drive through a TestStore.

// MARK: Counter with a number fact

/// Fetches a fact about a number; the network, in a real app.
struct NumberFactClient: Sendable {
  var fetch: @Sendable (Int) async throws -> String
}

extension NumberFactClient: TestDependencyKey {
  static let testValue = NumberFactClient { _ in
    reportIssue("NumberFactClient.fetch is unimplemented")
    return ""
  }
}

extension DependencyValues {
  var numberFact: NumberFactClient {
    get { self[NumberFactClient.self] }
    set { self[NumberFactClient.self] = newValue }
  }
}

struct FactError: Error, Equatable {}

struct Counter: Reducer {
  struct State: Equatable, Sendable {
    var count = 0
    var fact: String?
    var isLoading = false
  }

  @CasePathable
  enum Action: Equatable, Sendable {
    case decrementButtonTapped
    case incrementButtonTapped
    case factButtonTapped
    case factResponse(String)
    case factFailed
  }

  @Dependency(\.numberFact) var numberFact

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .decrementButtonTapped:
        state.count -= 1
        state.fact = nil
        return .none
      case .incrementButtonTapped:
        state.count += 1
        state.fact = nil
        return .none
      case .factButtonTapped:
        state.fact = nil
        state.isLoading = true
        return .run { [count = state.count, numberFact] send in
          await send(.factResponse(try await numberFact.fetch(count)))
        } catch: { _, send in
          await send(.factFailed)
        }
      case let .factResponse(fact):
        state.isLoading = false
        state.fact = fact
        return .none
      case .factFailed:
        state.isLoading = false
        return .none
      }
    }
  }
}

// MARK: Search with a debounce

struct SearchClient: Sendable {
  var search: @Sendable (String) async throws -> [String]
}

extension SearchClient: TestDependencyKey {
  static let testValue = SearchClient { _ in
    reportIssue("SearchClient.search is unimplemented")
    return []
  }
}

extension DependencyValues {
  var searchClient: SearchClient {
    get { self[SearchClient.self] }
    set { self[SearchClient.self] = newValue }
  }
}

struct Search: Reducer {
  struct State: Equatable, Sendable {
    var query = ""
    var results: [String] = []
  }

  @CasePathable
  enum Action: Equatable, Sendable {
    case queryChanged(String)
    case searchResponse([String])
  }

  enum CancelID { case search }

  @Dependency(\.continuousClock) var clock
  @Dependency(\.searchClient) var searchClient

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case let .queryChanged(query):
        state.query = query
        guard !query.isEmpty else {
          state.results = []
          return .cancel(id: CancelID.search)
        }
        return .run { [clock, searchClient] send in
          try await clock.sleep(for: .milliseconds(300))
          await send(.searchResponse(try await searchClient.search(query)))
        }
        .cancellable(id: CancelID.search, cancelInFlight: true)
      case let .searchResponse(results):
        state.results = results
        return .none
      }
    }
  }
}

// MARK: Todos

struct Todo: Reducer {
  struct State: Equatable, Identifiable, Sendable {
    let id: Int
    var title = ""
    var isComplete = false
    var isSaving = false
  }

  @CasePathable
  enum Action: Equatable, Sendable {
    case toggleTapped
    case saved
  }

  /// The cancellation ID of a row's save; `forEach` scopes it to the row, so rows do not
  /// replace each other's saves.
  enum CancelID { case save }

  @Dependency(\.continuousClock) var clock

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .toggleTapped:
        state.isComplete.toggle()
        state.isSaving = true
        return .run { [clock] send in
          try await clock.sleep(for: .seconds(1))
          await send(.saved)
        }
        .cancellable(id: CancelID.save, cancelInFlight: true)
      case .saved:
        state.isSaving = false
        return .none
      }
    }
  }
}

struct Todos: Reducer {
  struct State: Equatable, Sendable {
    var todos: IdentifiedArrayOf<Todo.State> = []
  }

  @CasePathable
  enum Action: Equatable, Sendable {
    case addTapped(title: String)
    case delete(id: Int)
    case todos(IdentifiedActionOf<Todo>)
  }

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case let .addTapped(title):
        state.todos.append(Todo.State(id: (state.todos.ids.max() ?? 0) + 1, title: title))
        return .none
      case let .delete(id):
        // Removing the row cancels its save: `forEach` ends a row's effects with the row.
        state.todos.remove(id: id)
        return .none
      case .todos:
        return .none
      }
    }
    .forEach(\.todos, action: \.todos) {
      Todo()
    }
  }
}

// MARK: Timer

struct Ticker: Reducer {
  struct State: Equatable, Sendable {
    var isRunning = false
    var secondsElapsed = 0
  }

  @CasePathable
  enum Action: Equatable, Sendable {
    case startButtonTapped
    case stopButtonTapped
    case tick
  }

  enum CancelID { case timer }

  @Dependency(\.continuousClock) var clock

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .startButtonTapped:
        state.isRunning = true
        return .run { [clock] send in
          for await _ in clock.timer(interval: .seconds(1)) {
            await send(.tick)
          }
        }
        .cancellable(id: CancelID.timer, cancelInFlight: true)
      case .stopButtonTapped:
        state.isRunning = false
        return .cancel(id: CancelID.timer)
      case .tick:
        state.secondsElapsed += 1
        return .none
      }
    }
  }
}

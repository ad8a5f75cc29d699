import Dependencies
import SpoolCore

/// The feature the `search` workload drives: a search field whose keystrokes are debounced,
/// whose in-flight request is cancelled by the next keystroke, and whose answer comes from a
/// `search` function (in the workload, a block of a file read through SpoolIO).
///
/// ```swift
/// let store = Store(initialState: SearchFeature.State()) {
///   SearchFeature(debounce: .milliseconds(300)) { query in try await index.count(query) }
/// }
/// store.enqueue(.queryChanged("s"))
/// store.enqueue(.queryChanged("sp"))
/// await store.finish()  // one search, for "sp"
/// ```
public struct SearchFeature: Reducer, Sendable {
  /// The query and what the searches answered.
  public struct State: Equatable, Sendable {
    public var query = ""
    public var keystrokes = 0
    /// Responses for the current query.
    public var responses = 0
    /// Responses for an older query, ignored (a request that was not cancelled in time).
    public var staleResponses = 0
    public var matches = 0
    /// The query of the latest response for the current query.
    public var answeredQuery = ""
    /// Creates the reducer.
    public init() {}
  }

  /// A keystroke, and a search's answer.
  public enum Action: Equatable, Sendable {
    case queryChanged(String)
    case searchResponse(query: String, matches: Int)
  }

  enum CancelID { case search }

  @Dependency(\.continuousClock) var clock
  let debounce: Duration
  let search: @Sendable (String) async throws -> Int

  /// A search field that waits `debounce` after the last keystroke before calling `search`.
  public init(debounce: Duration, search: @escaping @Sendable (String) async throws -> Int) {
    self.debounce = debounce
    self.search = search
  }

  /// Reduces one action; the type's documentation says what each action does.

  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case let .queryChanged(query):
      state.query = query
      state.keystrokes += 1
      return .run { [clock, debounce, search] send in
        try await clock.sleep(for: debounce)
        let matches = try await search(query)
        await send(.searchResponse(query: query, matches: matches))
      }
      .cancellable(id: CancelID.search, cancelInFlight: true)
    case let .searchResponse(query, matches):
      guard query == state.query else {
        state.staleResponses += 1
        return .none
      }
      state.responses += 1
      state.matches = matches
      state.answeredQuery = query
      return .none
    }
  }
}

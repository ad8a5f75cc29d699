import CasePathsCore
import IdentifiedCollections
import SpoolCore

/// One row of ``TodosFeature``.
///
/// ```swift
/// var row = TodoFeature.State(id: 1, title: "Write the benchmark")
/// _ = TodoFeature().reduce(into: &row, action: .toggle)
/// ```
public struct TodoFeature: Reducer, Sendable {
  /// A todo.
  public struct State: Equatable, Identifiable, Sendable {
    public let id: Int
    public var title: String
    public var isComplete = false
    /// Actions this row received, to check that none was lost.
    public var edits = 0

    /// A todo not yet done.
    public init(id: Int, title: String) {
      self.id = id
      self.title = title
    }
  }

  /// What a row can be asked.
  public enum Action: Equatable, Sendable {
    case toggle
  }

  /// Creates the reducer.

  public init() {}

  /// Reduces one action; the type's documentation says what each action does.

  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .toggle:
      state.isComplete.toggle()
      state.edits += 1
      return .none
    }
  }
}

/// The feature the `todos` workload drives: a list of thousands of rows run by `forEach`,
/// receiving row actions. A row action's cost must not depend on the number of rows.
///
/// ```swift
/// let store = Store(initialState: TodosFeature.State(rows: 10_000)) { TodosFeature() }
/// store.enqueue(.rows(.element(id: 42, action: .toggle)))
/// ```
public struct TodosFeature: Reducer, Sendable {
  /// The rows and the number of row actions the list saw.
  public struct State: Equatable, Sendable {
    public var rows: IdentifiedArrayOf<TodoFeature.State>
    public var rowActions = 0

    /// A list of `rows` todos with IDs `0..<rows`.
    public init(rows: Int) {
      self.rows = IdentifiedArray(
        uniqueElements: (0..<rows).map { TodoFeature.State(id: $0, title: "Todo \($0)") })
    }
  }

  /// A row's action.
  public enum Action: Equatable, Sendable {
    case rows(IdentifiedActionOf<TodoFeature>)
  }

  // `body` is evaluated for every action; written as literals, its key paths would be
  // instantiated each time (the case key path is generic, so `swift_getKeyPath` resolves its
  // generic arguments on every call: about half of a row action in a profile of
  // `spool bench todos`). Made once, here, a row action pays only for the `forEach` itself.
  private static let rowsState: WritableKeyPath<State, IdentifiedArrayOf<TodoFeature.State>>
    & Sendable = \.rows
  private static let rowsAction: CaseKeyPath<Action, IdentifiedActionOf<TodoFeature>>
    & Sendable = \.rows

  /// Creates the reducer.

  public init() {}

  /// The parent's own reducer, then `forEach` over the rows.

  public var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .rows:
        state.rowActions += 1
        return .none
      }
    }
    .forEach(Self.rowsState, action: Self.rowsAction) {
      TodoFeature()
    }
  }
}

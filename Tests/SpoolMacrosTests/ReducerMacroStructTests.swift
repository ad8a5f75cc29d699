import MacroTesting
import SpoolMacroExpansions
import Testing

/// `@Reducer` on a struct: the conformance, and the attributes of the nested enums.
@Suite(.macros(["Reducer": ReducerMacro.self], record: .never))
struct ReducerMacroStructTests {
  @Test func addsTheConformanceAndTheActionsAttributes() {
    assertMacro {
      """
      @Reducer
      struct Counter {
        struct State: Equatable, Sendable {
          var count = 0
        }
        enum Action {
          case incrementButtonTapped
        }
        var body: some ReducerOf<Self> {
          Reduce { state, action in .none }
        }
      }
      """
    } expansion: {
      """
      struct Counter {
        struct State: Equatable, Sendable {
          var count = 0
        }
        @CasePathable @dynamicMemberLookup
        enum Action {
          case incrementButtonTapped
        }
        @Spool.ReducerBuilder<Self.State, Self.Action>
        var body: some ReducerOf<Self> {
          Reduce { state, action in .none }
        }
      }

      extension Counter: Spool.Reducer {
      }
      """
    }
  }

  @Test func anEnumStateGetsTheAttributesToo() {
    assertMacro {
      """
      @Reducer
      struct App {
        enum State {
          case loggedIn(Home.State)
          case loggedOut(Login.State)
        }
        enum Action {
          case loggedIn(Home.Action)
          case loggedOut(Login.Action)
        }
        func reduce(into state: inout State, action: Action) -> Effect<Action> {
          .none
        }
      }
      """
    } expansion: {
      """
      struct App {
        @CasePathable @dynamicMemberLookup
        enum State {
          case loggedIn(Home.State)
          case loggedOut(Login.State)
        }
        @CasePathable @dynamicMemberLookup
        enum Action {
          case loggedIn(Home.Action)
          case loggedOut(Login.Action)
        }
        func reduce(into state: inout State, action: Action) -> Effect<Action> {
          .none
        }
      }

      extension App: Spool.Reducer {
      }
      """
    }
  }

  @Test func attributesAlreadyWrittenAreNotAddedAgain() {
    assertMacro {
      """
      @Reducer
      struct Feature {
        @CasePathable
        enum State {
          case idle
        }
        @dynamicMemberLookup @CasePaths.CasePathable
        enum Action {
          case start
        }
        @ReducerBuilder<State, Action>
        var body: some ReducerOf<Self> {
          EmptyReducer()
        }
      }
      """
    } expansion: {
      """
      struct Feature {
        @CasePathable
        @dynamicMemberLookup
        enum State {
          case idle
        }
        @dynamicMemberLookup @CasePaths.CasePathable
        enum Action {
          case start
        }
        @ReducerBuilder<State, Action>
        var body: some ReducerOf<Self> {
          EmptyReducer()
        }
      }

      extension Feature: Spool.Reducer {
      }
      """
    }
  }

  @Test func typealiasesAreLeftAlone() {
    assertMacro {
      """
      @Reducer
      struct Wrapper {
        typealias State = Counter.State
        typealias Action = Counter.Action
        var body: some ReducerOf<Self> {
          Counter()
        }
      }
      """
    } expansion: {
      """
      struct Wrapper {
        typealias State = Counter.State
        typealias Action = Counter.Action
        @Spool.ReducerBuilder<Self.State, Self.Action>
        var body: some ReducerOf<Self> {
          Counter()
        }
      }

      extension Wrapper: Spool.Reducer {
      }
      """
    }
  }

  @Test func aWrittenConformanceIsNotRepeated() {
    assertMacro {
      """
      @Reducer
      struct Feature: Spool.Reducer {
        struct State {}
        enum Action {
          case start
        }
        func reduce(into state: inout State, action: Action) -> Effect<Action> {
          .none
        }
      }
      """
    } expansion: {
      """
      struct Feature: Spool.Reducer {
        struct State {}
        @CasePathable @dynamicMemberLookup
        enum Action {
          case start
        }
        func reduce(into state: inout State, action: Action) -> Effect<Action> {
          .none
        }
      }
      """
    }
  }

  @Test func aStoredBodyGetsNoBuilder() {
    assertMacro {
      """
      @Reducer
      struct Wrapper {
        typealias State = Counter.State
        typealias Action = Counter.Action
        let body = Counter()
      }
      """
    } expansion: {
      """
      struct Wrapper {
        typealias State = Counter.State
        typealias Action = Counter.Action
        let body = Counter()
      }

      extension Wrapper: Spool.Reducer {
      }
      """
    }
  }

  // MARK: A struct without body, State or Action (TCA's `testStructWithNoRequirements`)

  @Test func aStructWithNothingGetsAnEmptyStateActionAndBody() {
    assertMacro {
      """
      @Reducer
      struct Feature {
      }
      """
    } expansion: {
      """
      struct Feature {

          struct State: Codable, Equatable, Hashable, Sendable {
            init() {
            }
          }

          enum Action: Equatable, Hashable, Sendable {
          }

          let body = Spool.EmptyReducer<State, Action>()
      }

      extension Feature: Spool.Reducer {
      }
      """
    }
  }

  @Test func aPublicStructGetsPublicMembers() {
    assertMacro {
      """
      @Reducer
      public struct Feature {}
      """
    } expansion: {
      """
      public struct Feature {

          public struct State: Codable, Equatable, Hashable, Sendable {
            public init() {
            }
          }

          public enum Action: Equatable, Hashable, Sendable {
          }

          public let body = Spool.EmptyReducer<State, Action>()
      }

      extension Feature: Spool.Reducer {
      }
      """
    }
  }

  @Test func aDeclaredStateOrActionIsKept() {
    assertMacro {
      """
      @Reducer
      struct Banner {
        struct State: Equatable, Sendable {
          var text = ""
        }
      }
      """
    } expansion: {
      """
      struct Banner {
        struct State: Equatable, Sendable {
          var text = ""
        }

        enum Action: Equatable, Hashable, Sendable {
        }

        let body = Spool.EmptyReducer<State, Action>()
      }

      extension Banner: Spool.Reducer {
      }
      """
    }
  }

  @Test func typealiasesWithoutBodyGetOnlyTheBody() {
    assertMacro {
      """
      @Reducer
      struct Feature {
        typealias State = Int
        typealias Action = Bool
      }
      """
    } expansion: {
      """
      struct Feature {
        typealias State = Int
        typealias Action = Bool

        let body = Spool.EmptyReducer<State, Action>()
      }

      extension Feature: Spool.Reducer {
      }
      """
    }
  }
}

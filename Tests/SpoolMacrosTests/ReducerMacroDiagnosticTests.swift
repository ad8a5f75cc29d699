import MacroTesting
import SpoolMacroExpansions
import Testing

/// What `@Reducer` reports where it cannot generate a reducer.
@Suite(.macros(["Reducer": ReducerMacro.self], record: .never))
struct ReducerMacroDiagnosticTests {
  @Test func aClass() {
    assertMacro {
      """
      @Reducer
      final class Feature {
        var body: some ReducerOf<Self> { EmptyReducer() }
      }
      """
    } diagnostics: {
      """
      @Reducer
      final class Feature {
            ┬────
            ╰─ 🛑 '@Reducer' can only be applied to a struct or an enum, not to class 'Feature'
        var body: some ReducerOf<Self> { EmptyReducer() }
      }
      """
    }
  }

  @Test func conformanceArgumentsOnAStruct() {
    assertMacro {
      """
      @Reducer(state: .equatable)
      struct Feature {
        struct State {}
        enum Action {}
        var body: some ReducerOf<Self> { EmptyReducer() }
      }
      """
    } diagnostics: {
      """
      @Reducer(state: .equatable)
      ┬──────────────────────────
      ╰─ 🛑 '@Reducer(state:action:)' adds conformances to the 'State' and 'Action' that an enum reducer generates; struct 'Feature' declares its own: write the conformances on them, and use '@Reducer'
      struct Feature {
        struct State {}
        enum Action {}
        var body: some ReducerOf<Self> { EmptyReducer() }
      }
      """
    }
  }

  @Test func anActor() {
    assertMacro {
      """
      @Reducer
      actor Feature {
      }
      """
    } diagnostics: {
      """
      @Reducer
      actor Feature {
      ┬────
      ╰─ 🛑 '@Reducer' can only be applied to a struct or an enum, not to actor 'Feature'
      }
      """
    }
  }

  @Test func aProtocol() {
    assertMacro {
      """
      @Reducer
      protocol Feature {
      }
      """
    } diagnostics: {
      """
      @Reducer
      protocol Feature {
      ┬───────
      ╰─ 🛑 '@Reducer' can only be applied to a struct or an enum, not to protocol 'Feature'
      }
      """
    }
  }

  @Test func aStructWithoutBodyOrReduce() {
    assertMacro {
      """
      @Reducer
      struct Feature {
        struct State {}
        enum Action {
          case start
        }
        func reduce(state: inout State, action: Action) -> Effect<Action> {
          .none
        }
        static var body: some ReducerOf<Self> { EmptyReducer() }
      }
      """
    } diagnostics: {
      """
      @Reducer
      struct Feature {
             ┬──────
             ╰─ 🛑 '@Reducer' struct 'Feature' has neither a 'body' nor a 'reduce(into:action:)'; declare 'var body: some ReducerOf<Self>' or 'func reduce(into state: inout State, action: Action) -> Effect<Action>' in it
        struct State {}
        enum Action {
          case start
        }
        func reduce(state: inout State, action: Action) -> Effect<Action> {
          .none
        }
        static var body: some ReducerOf<Self> { EmptyReducer() }
      }
      """
    }
  }

  @Test func enumCasesThatHoldNoReducer() {
    assertMacro {
      """
      @Reducer
      enum Destination {
        case add(AddItem)
        case detail(item: Detail)
        case pair((AddItem, EditItem))
        case maybe(AddItem?)
      }
      """
    } diagnostics: {
      """
      @Reducer
      enum Destination {
        case add(AddItem)
        case detail(item: Detail)
                    ┬───────────
                    ╰─ 🛑 '@Reducer' enum case 'detail' must hold exactly one unlabelled reducer, as in 'case detail(Detail)', or be marked '@ReducerCaseEphemeral' or '@ReducerCaseIgnored': its associated value has the label 'item'
        case pair((AddItem, EditItem))
                  ┬──────────────────
                  ╰─ 🛑 '@Reducer' enum case 'pair' must hold exactly one unlabelled reducer, as in 'case pair(Pair)', or be marked '@ReducerCaseEphemeral' or '@ReducerCaseIgnored': '(AddItem, EditItem)' is not the name of a reducer type
        case maybe(AddItem?)
                   ┬───────
                   ╰─ 🛑 '@Reducer' enum case 'maybe' must hold exactly one unlabelled reducer, as in 'case maybe(Maybe)', or be marked '@ReducerCaseEphemeral' or '@ReducerCaseIgnored': 'AddItem?' is not the name of a reducer type
      }
      """
    }
  }

  @Test func ephemeralCasesThatHoldNoNamedValue() {
    assertMacro {
      """
      @Reducer
      enum Destination {
        @ReducerCaseEphemeral
        case alert
        @ReducerCaseEphemeral
        case pair(Prompt<A>, Prompt<B>)
        @ReducerCaseEphemeral
        case maybe(Prompt<A>?)
      }
      """
    } diagnostics: {
      """
      @Reducer
      enum Destination {
        @ReducerCaseEphemeral
        case alert
             ┬────
             ╰─ 🛑 '@ReducerCaseEphemeral' case 'alert' must hold exactly one value of a named type whose actions are its 'Action': it has no associated value
        @ReducerCaseEphemeral
        case pair(Prompt<A>, Prompt<B>)
             ┬─────────────────────────
             ╰─ 🛑 '@ReducerCaseEphemeral' case 'pair' must hold exactly one value of a named type whose actions are its 'Action': it has 2 values
        @ReducerCaseEphemeral
        case maybe(Prompt<A>?)
                   ┬─────────
                   ╰─ 🛑 '@ReducerCaseEphemeral' case 'maybe' must hold exactly one value of a named type whose actions are its 'Action': 'Prompt<A>?' is not the name of a type
      }
      """
    }
  }

  @Test func ifConfigAroundACasesAttributes() {
    assertMacro {
      """
      @Reducer
      enum Destination {
        case edit(Edit)
        #if DEBUG
        @ReducerCaseIgnored
        #endif
        case preview(Preview)
      }
      """
    } diagnostics: {
      """
      @Reducer
      enum Destination {
        case edit(Edit)
        #if DEBUG
        ╰─ 🛑 '@Reducer' enum case 'preview' cannot have '#if' around its attributes: whether it holds a reducer, ephemeral or ignored state must not depend on the configuration; put the whole case, with its attributes, in each '#if' clause instead
        @ReducerCaseIgnored
        #endif
        case preview(Preview)
      }
      """
    }
  }
}


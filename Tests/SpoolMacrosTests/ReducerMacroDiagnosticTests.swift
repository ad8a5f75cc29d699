import MacroTesting
import SpoolMacros
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
        case alert
        case edit(EditItem, Int)
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
        case alert
             ┬────
             ╰─ 🛑 '@Reducer' enum case 'alert' must hold exactly one unlabelled reducer, as in 'case alert(Alert)': it has no associated value
        case edit(EditItem, Int)
             ┬──────────────────
             ╰─ 🛑 '@Reducer' enum case 'edit' must hold exactly one unlabelled reducer, as in 'case edit(Edit)': it has 2 associated values
        case detail(item: Detail)
                    ┬───────────
                    ╰─ 🛑 '@Reducer' enum case 'detail' must hold exactly one unlabelled reducer, as in 'case detail(Detail)': its associated value has the label 'item'
        case pair((AddItem, EditItem))
                  ┬──────────────────
                  ╰─ 🛑 '@Reducer' enum case 'pair' must hold exactly one unlabelled reducer, as in 'case pair(Pair)': '(AddItem, EditItem)' is not the name of a reducer type
        case maybe(AddItem?)
                   ┬───────
                   ╰─ 🛑 '@Reducer' enum case 'maybe' must hold exactly one unlabelled reducer, as in 'case maybe(Maybe)': 'AddItem?' is not the name of a reducer type
      }
      """
    }
  }
}

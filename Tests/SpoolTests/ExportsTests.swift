import Spool
import Testing

/// `import Spool` alone is enough to declare a feature, as `import ComposableArchitecture` is
/// in TCA: this file imports nothing else, so what it names must come with Spool.
@Suite struct ExportsTests {
  struct Row: Equatable, Identifiable, Sendable {
    var id: Int
    var text = ""
  }

  @Reducer
  struct Rows {
    struct State: Equatable, Sendable {
      var rows: IdentifiedArrayOf<Row> = []
    }
    enum Action: Equatable, Sendable {
      case rows(IdentifiedAction<Int, String>)
    }
    var body: some ReducerOf<Self> {
      EmptyReducer()
        .forEach(\.rows, action: \.rows) {
          Reduce { row, text in
            row.text = text
            return .none
          }
        }
    }
  }

  @Test func identifiedArraysComeWithSpool() async {
    let store = Store(initialState: Rows.State(rows: [Row(id: 1)])) { Rows() }
    await store.send(\.rows[id: 1], "a")
    #expect(await store.state.rows[id: 1]?.text == "a")
  }
}

import Spool
import Testing

// Five enum reducers in one file, each naming `Reducer` after its name: the form the `@Reducer`
// documentation gives for Swift 6.3.1, whose compiler crashes on such a file when the
// conformances come from the macro alone.

@Reducer
enum FirstRoute: Reducer { case step(Stepper) }

@Reducer
enum SecondRoute: Reducer {
  case step(Stepper)
  case big(Stepper = Stepper(step: 10))
}

@Reducer
enum ThirdRoute: Reducer { case step(Stepper) }

@Reducer
enum FourthRoute: Reducer { case step(Stepper) }

@Reducer
enum FifthRoute: Reducer {
  case step(Stepper)
  case other(Stepper)
}

extension SecondRoute.State: Equatable {}

@Reducer
struct RouteHost {
  struct State: Equatable, Sendable { var route: SecondRoute.State? }
  enum Action: Sendable { case route(SecondRoute.Action) }
  var body: some ReducerOf<Self> {
    Reduce { _, _ in .none }
      .ifLet(\.route, action: \.route)
  }
}

@Suite struct ManyEnumReducersTests {
  @Test func anEnumReducerNamingReducerRunsItsCases() async {
    let store = Store(initialState: RouteHost.State(route: .big(Stepper.State()))) {
      RouteHost()
    }
    await store.send(.route(.big(.tap)))
    #expect(await store.state.route == .big(Stepper.State(count: 10)))
  }
}
